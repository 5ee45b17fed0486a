/**
 * Migration 40: the posts_rank_columns trigger (migrations 5 and 14) fires on an insert only for a
 * row that comes without its rank columns or pairs. The store's writers send `rank_vector` and
 * `body_length` computed from the same tokens as `search_vector` (rankColumns,
 * postgres-vector-literals.ts), so a refresh's rows skip a PL/pgSQL call each; a writer that sends
 * `search_vector` alone (SQL by hand, migrate-data's COPY, an older build) gets them from the
 * trigger as before. An update of `search_vector` still has them computed again by the trigger
 * (the WHEN of an update cannot tell a column the statement set from the old row's value).
 * Both dropped first: a migration taken again (an older build's schema_migrations) makes them anew.
 */
export const rankTriggerSchema = `
DROP TRIGGER IF EXISTS posts_rank_columns ON posts;
DROP TRIGGER IF EXISTS posts_rank_columns_update ON posts;
CREATE TRIGGER posts_rank_columns BEFORE INSERT ON posts FOR EACH ROW
  WHEN (NEW.rank_vector IS NULL OR NEW.body_length IS NULL OR NEW.phrase_vector IS NULL)
  EXECUTE FUNCTION posts_rank_columns();
CREATE TRIGGER posts_rank_columns_update BEFORE UPDATE OF search_vector ON posts FOR EACH ROW
  EXECUTE FUNCTION posts_rank_columns();
`;
