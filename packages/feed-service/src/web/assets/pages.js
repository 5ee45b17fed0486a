// Keyboard shortcuts for the web pages, added on top of pages that work without any script:
// j / k move to the next / previous post, o or Enter opens it (through /click, so the click is
// counted), / goes to the search box, ? shows the list of shortcuts, Escape closes it.
// Loaded with `defer` from the service's own origin (the Content-Security-Policy allows nothing
// else); it builds its overlay with DOM calls, never from markup strings.
(() => {
  document.documentElement.classList.add("js");
  let current = -1;

  const posts = () => Array.from(document.querySelectorAll(".post"));
  const postLink = (post) => post.querySelector("h2 a, h3 a");

  function select(index) {
    const list = posts();
    if (list.length === 0) return;
    const next = Math.max(0, Math.min(list.length - 1, index));
    list[current]?.classList.remove("current");
    current = next;
    const post = list[current];
    post.classList.add("current");
    postLink(post)?.focus({ preventScroll: true });
    post.scrollIntoView({ block: "nearest" });
  }

  const shortcuts = [
    ["j", "next post"],
    ["k", "previous post"],
    ["o or Enter", "open the post"],
    ["/", "search"],
    ["?", "show or hide this help"],
    ["Esc", "close this help"],
  ];
  let help;

  function toggleHelp(show) {
    if (!help) {
      help = document.createElement("div");
      help.className = "shortcut-help";
      help.id = "shortcut-help";
      help.hidden = true;
      const box = document.createElement("div");
      box.setAttribute("role", "dialog");
      box.setAttribute("aria-modal", "true");
      box.setAttribute("aria-labelledby", "shortcut-help-title");
      const title = document.createElement("h2");
      title.id = "shortcut-help-title";
      title.textContent = "Keyboard shortcuts";
      const list = document.createElement("dl");
      for (const [keys, what] of shortcuts) {
        const dt = document.createElement("dt");
        const kbd = document.createElement("kbd");
        kbd.textContent = keys;
        dt.append(kbd);
        const dd = document.createElement("dd");
        dd.textContent = what;
        list.append(dt, dd);
      }
      const close = document.createElement("button");
      close.type = "button";
      close.textContent = "Close";
      close.addEventListener("click", () => toggleHelp(false));
      box.append(title, list, close);
      help.append(box);
      help.addEventListener("click", (event) => {
        if (event.target === help) toggleHelp(false);
      });
      document.body.append(help);
    }
    help.hidden = show === undefined ? !help.hidden : !show;
    if (!help.hidden) help.querySelector("button").focus();
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const typing =
      target instanceof HTMLElement &&
      (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
    if (event.key === "Escape") {
      if (help && !help.hidden) toggleHelp(false);
      else if (typing) target.blur();
      return;
    }
    if (typing) return;
    switch (event.key) {
      case "j":
        select(current + 1);
        break;
      case "k":
        select(current - 1);
        break;
      case "o":
      case "Enter": {
        const post = posts()[current];
        const link = post && postLink(post);
        // Enter on a focused link other than the current post's keeps its own meaning.
        if (
          !link ||
          (event.key === "Enter" &&
            document.activeElement !== link &&
            document.activeElement !== document.body)
        )
          return;
        window.location.href = link.href;
        break;
      }
      case "/": {
        const box = document.getElementById("search-q");
        if (!box) return;
        box.focus();
        box.select();
        break;
      }
      case "?":
        toggleHelp();
        break;
      default:
        return;
    }
    event.preventDefault();
  });
})();
