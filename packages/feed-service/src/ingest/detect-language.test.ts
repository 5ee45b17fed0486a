/**
 * Guessing the language of posts that declare none: news-like sentences in the web's languages
 * are named, short or unsure text and languages outside the allowed list are `und`, and the list
 * the operator sets (`--detect-languages`) reaches the parse workers.
 */
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { afterEach, describe, it } from "node:test";
import { languageCodeFor } from "./detect-language.js";
import {
  defaultDetectableLanguages,
  detectableLanguages,
  guessableLanguages,
  readDetectableLanguages,
  setDetectableLanguages,
} from "./detectable-languages.js";
import { ParsePool } from "./parse-pool.js";

const sentences: Record<string, string> = {
  en: "The city council approved a new budget on Tuesday that doubles the money for bicycle lanes and repairs to older bridges.",
  fr: "Le gouvernement a annoncé mardi une série de mesures destinées à soutenir les agriculteurs touchés par la sécheresse.",
  de: "Die Bundesregierung hat am Dienstag neue Maßnahmen zur Unterstützung der Landwirte beschlossen, die unter der Dürre leiden.",
  es: "El gobierno anunció el martes una serie de medidas para apoyar a los agricultores afectados por la sequía de este verano.",
  it: "Il governo ha annunciato martedì una serie di misure per sostenere gli agricoltori colpiti dalla siccità di quest'estate.",
  pt: "O governo anunciou na terça-feira uma série de medidas para apoiar os agricultores afetados pela seca deste verão.",
  nl: "De regering heeft dinsdag een reeks maatregelen aangekondigd om boeren te steunen die door de droogte zijn getroffen.",
  pl: "Rząd ogłosił we wtorek szereg środków mających na celu wsparcie rolników dotkniętych tegoroczną suszą.",
  ru: "Правительство во вторник объявило о ряде мер по поддержке фермеров, пострадавших от засухи этим летом.",
  ja: "政府は火曜日、今年の夏の干ばつの影響を受けた農家を支援するための一連の措置を発表しました。",
  zh: "政府周二宣布了一系列措施，以支持今年夏天受干旱影响的农民，并为受灾地区提供紧急资金。",
};

const latin =
  "Gallia est omnis divisa in partes tres, quarum unam incolunt Belgae, aliam Aquitani, tertiam qui ipsorum lingua Celtae, nostra Galli appellantur.";
const loremIpsum =
  "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.";

afterEach(() => setDetectableLanguages(defaultDetectableLanguages));

describe("language guesses", () => {
  it("names news-like text in the web's languages", () => {
    for (const [code, text] of Object.entries(sentences)) {
      assert.equal(languageCodeFor(null, text), code, text);
    }
  });

  it("leaves short text undetermined, however clear", () => {
    assert.equal(languageCodeFor(null, "Release notes for version 2"), "und");
    assert.equal(languageCodeFor(null, "Le gouvernement a annoncé mardi des mesures."), "und");
    assert.equal(languageCodeFor(null, "政府宣布了措施"), "und");
    assert.equal(languageCodeFor(null, ""), "und");
  });

  it("does not guess Latin (or Berber for code, Klingon for names) unless the list has it", () => {
    assert.equal(languageCodeFor(null, latin), "und");
    assert.equal(languageCodeFor(null, loremIpsum), "und");
    assert.equal(
      languageCodeFor(
        null,
        "npm install --save-dev typescript tsx @types/node eslint prettier husky lint-staged",
      ),
      "und",
    );
    assert.equal(
      languageCodeFor(
        null,
        "John Smith, Maria Garcia, Wei Zhang, Ahmed Hassan, Olga Petrova, Kenji Watanabe",
      ),
      "und",
    );
    setDetectableLanguages(["en", "la"]);
    assert.equal(languageCodeFor(null, loremIpsum), "la");
  });

  it("guesses only among the operator's languages; none turns guessing off", () => {
    setDetectableLanguages(readDetectableLanguages("en, DE"));
    assert.equal(languageCodeFor(null, sentences.de!), "de");
    assert.equal(languageCodeFor(null, sentences.fr!), "und");
    setDetectableLanguages(readDetectableLanguages("none"));
    assert.equal(languageCodeFor(null, sentences.en!), "und");
    // A declared tag is never second-guessed.
    assert.equal(languageCodeFor("fr_CA", sentences.en!), "fr-CA");
  });

  it("reads --detect-languages, naming what it does not know", () => {
    assert.deepEqual(readDetectableLanguages(" en,de , EN "), ["en", "de"]);
    assert.deepEqual(readDetectableLanguages("NONE"), []);
    assert.throws(
      () => readDetectableLanguages("en,xx"),
      (error: Error & { code?: string }) =>
        error.code === "FEED_BAD_ARGUMENT" &&
        /^--detect-languages must be none or a comma-separated list of languages the detector knows \(af,am,.*\); got "xx"\.$/.test(
          error.message,
        ),
    );
    assert.throws(() => readDetectableLanguages("en,,de"), /got an empty entry in "en,,de"/);
    assert.throws(() => readDetectableLanguages(""), /got an empty entry/);
  });

  it("lists exactly the languages the detector knows, the default among them", () => {
    const tinyld = createRequire(import.meta.url)("tinyld") as {
      supportedLanguages: string[];
      toISO2(code: string): string;
    };
    assert.deepEqual(
      [...guessableLanguages].sort(),
      tinyld.supportedLanguages.map((code) => tinyld.toISO2(code)).sort(),
    );
    assert.equal(defaultDetectableLanguages.length, 30);
    for (const code of defaultDetectableLanguages) assert.ok(guessableLanguages.includes(code), code);
    for (const code of ["la", "tlh", "vo", "ber", "eo"])
      assert.ok(!defaultDetectableLanguages.includes(code), code);
  });

  it("parse workers guess among the languages of the process that started them", async () => {
    const feed = Buffer.from(
      `<rss version="2.0"><channel><title>Sans langue</title>
       <item><title>Sécheresse</title><link>https://example.test/1</link><description>${sentences.fr}</description></item>
       </channel></rss>`,
    );
    const guessIn = async (languages: readonly string[]) => {
      setDetectableLanguages(languages);
      const pool = new ParsePool(1);
      try {
        const doc = await pool.process(feed, "application/rss+xml", "https://example.test/feed", Date.now());
        return doc.entries.map((e) => e.language);
      } finally {
        await pool.close();
      }
    };
    assert.deepEqual(await guessIn(defaultDetectableLanguages), ["fr"]);
    assert.deepEqual(await guessIn(["en", "de"]), ["und"]);
    assert.deepEqual(detectableLanguages(), ["en", "de"]);
  });
});
