export { main, usage } from "./cli.js";
