import assert from "node:assert/strict";
import { test } from "node:test";
import { canonicalLink, storyLink } from "./canonical-link.js";

test("tracking parameters, the fragment, default ports, case of scheme and host do not change the story", () => {
  const base = canonicalLink("https://example.com/2025/05/post");
  assert.equal(base, "example.com/2025/05/post");
  for (const variant of [
    "HTTPS://Example.COM/2025/05/post",
    "http://example.com/2025/05/post",
    "https://example.com:443/2025/05/post",
    "http://example.com:80/2025/05/post",
    "https://example.com/2025/05/post/",
    "https://example.com/2025/05/post#comments",
    "https://example.com/2025/05/post?utm_source=rss&utm_medium=feed&utm_campaign=x",
    "https://example.com/2025/05/post?fbclid=abc&gclid=def&mc_cid=1&mc_eid=2",
    "https://example.com/2025/05/post?ref=planet",
    "https://example.com./2025/05/post",
  ]) {
    assert.equal(canonicalLink(variant), base, variant);
  }
});

test("what names another page stays: path case, other ports, other hosts, kept parameters", () => {
  const base = canonicalLink("https://example.com/a/post");
  assert.notEqual(canonicalLink("https://example.com/a/Post"), base);
  assert.notEqual(canonicalLink("https://example.com:8080/a/post"), base);
  assert.notEqual(canonicalLink("https://www.example.com/a/post"), base);
  assert.notEqual(canonicalLink("https://example.com/a/post?p=2"), base);
  assert.notEqual(
    canonicalLink("https://example.com/a/post?p=2"),
    canonicalLink("https://example.com/a/post?p=3"),
  );
  // Home pages: the root with and without a slash is one page.
  assert.equal(canonicalLink("https://example.com/"), canonicalLink("https://example.com"));
});

test("kept parameters are sorted; tracking ones go whatever their order", () => {
  assert.equal(
    canonicalLink("https://example.com/?b=2&utm_term=x&a=1"),
    canonicalLink("https://example.com/?a=1&b=2&fbclid=y"),
  );
  assert.equal(canonicalLink("https://example.com/p?id=7&utm_source=x"), "example.com/p?id=7");
});

test("links that are not http(s) URLs have no canonical form", () => {
  assert.equal(canonicalLink("tag:example.com,2025:1"), null);
  assert.equal(canonicalLink("not a url"), null);
  assert.equal(canonicalLink("mailto:a@example.com"), null);
});

test("a declared canonical link wins over the entry's own link", () => {
  assert.equal(
    storyLink({
      link: "https://feeds.example/~r/blog/1",
      canonicalLink: "https://blog.example/1?utm_source=feed",
    }),
    "blog.example/1",
  );
  assert.equal(storyLink({ link: "https://blog.example/1", canonicalLink: "not a url" }), "blog.example/1");
  assert.equal(storyLink({ link: "https://blog.example/1" }), "blog.example/1");
});
