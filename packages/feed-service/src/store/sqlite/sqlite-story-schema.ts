/**
 * Migration 18: one story once across feeds (src/dedupe/). A post's story keys sit beside it; a
 * copy that another feed carries is a row of `story_copies`, never a post, so it is in no
 * full-text row, no date index of posts and no roll-up: every list, search and ranking sees the
 * story's one post row and needs no filter. A feed's own list merges its copies back in
 * (sqlite-story-reads.ts) through `story_copies_by_feed`, in the story's date order.
 */
export const storySchema = `
CREATE TABLE story_keys (
  post_id INTEGER PRIMARY KEY REFERENCES posts (id) ON DELETE CASCADE,
  link_key TEXT,
  print TEXT
);
CREATE INDEX story_keys_by_link ON story_keys (link_key) WHERE link_key IS NOT NULL;

-- band: a 16-bit band of the print with its number (text-fingerprint.ts); the story's date
-- bounds the look-up to a few days around a new post.
CREATE TABLE story_bands (
  band INTEGER NOT NULL,
  post_date INTEGER NOT NULL,
  post_id INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  PRIMARY KEY (band, post_date, post_id)
) WITHOUT ROWID;
CREATE INDEX story_bands_by_post ON story_bands (post_id);

-- The copy's own fields are kept so that a merge can be undone (posts duplicates --undo).
-- story_date: the story's post_date, so that a feed's list merges its copies in date order.
CREATE TABLE story_copies (
  id INTEGER PRIMARY KEY,
  feed_id INTEGER NOT NULL REFERENCES feeds (id) ON DELETE CASCADE,
  post_id INTEGER NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
  guid TEXT NOT NULL,
  link TEXT NOT NULL,
  title TEXT NOT NULL,
  excerpt TEXT NOT NULL,
  content TEXT NOT NULL,
  published_at INTEGER,
  updated_at INTEGER,
  seen_at INTEGER NOT NULL,
  language_id INTEGER NOT NULL REFERENCES languages (id),
  story_date INTEGER NOT NULL,
  merged_by TEXT NOT NULL CHECK (merged_by IN ('link', 'text')),
  merged_at INTEGER NOT NULL,
  UNIQUE (feed_id, guid)
);
CREATE INDEX story_copies_by_feed ON story_copies (feed_id, story_date, post_id);
CREATE INDEX story_copies_by_post ON story_copies (post_id);
CREATE INDEX story_copies_by_time ON story_copies (merged_at, id);
`;
