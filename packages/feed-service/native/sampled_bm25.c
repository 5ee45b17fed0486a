/*
 * sampled_bm25: FTS5's bm25 ranking (https://sqlite.org/fts5.html#the_bm25_function) with the
 * corpus statistics supplied by the caller instead of counted on every query.
 *
 * FTS5's own bm25() finds each phrase's document frequency by walking that phrase's whole doclist
 * once per statement (xQueryPhrase): ~9 ms for a word in 40% of a million posts, on every search,
 * even when only 20 rows are scored. This function takes the frequencies as arguments, so the
 * caller can count them on a bounded sample of the index (the newest posts) and the cost of a
 * search is that of the rows it scores. The per-row formula is FTS5's, term for term; with the
 * exact whole-corpus counts as arguments (or NULL for "count them", which does what bm25() does)
 * the score is exactly -bm25().
 *
 * SQL:  sampled_bm25(fts_table, docsize, w_1, ..., w_nCol, N, n_1, ..., n_nPhrase)
 *   docsize  the name of the table's %_docsize shadow table in "main", or NULL: each row's length
 *        is then read from it through one blob handle moved from row to row, which costs a
 *        fraction of FTS5's xColumnSize (a prepared statement stepped per row); a row it cannot
 *        read falls back to xColumnSize for the rest of the statement;
 *   w_i  the weight of column i (as bm25's arguments); a negative one weighs its column's
 *        instances by -w_i and leaves the column out of every row's length and of the mean
 *        length: a column that repeats another's tokens under a marker (the store's title words,
 *        fts5-index-row.ts) then scores its phrases as the other column's, with the lengths of
 *        the rows without it;
 *   N    the number of documents the counts were taken over, or NULL to count on the whole index;
 *   n_j  how many of those documents hold phrase j (phrases in the MATCH expression's order);
 *        NULL to count it (with N NULL), or negative for a phrase that only narrows the match
 *        and weighs nothing (a filter written as a phrase).
 * Returns the score positive, higher better (bm25() returns it negated).
 *
 * SQL:  sampled_bm25_over(fts_table, nRow, nToken, docsize, w_1, ..., N, n_1, ..., n_nPhrase)
 *   the same score with the mean row length taken from another index's totals (nRow rows, nToken
 *   tokens: what xRowCount and xColumnTotalSize(-1) give on it, less the columns left out) instead
 *   of this table's, and N not
 *   NULL: an index of a subset of another's rows, with the same tokens per row, then scores each
 *   row exactly as the other index would (the store's clicked posts' index, whose rows are
 *   posts_fts's: sqlite-clicked-index.ts).
 *
 * Row lengths read from the docsize table are kept per connection (LengthCache, below): a row's
 * length is then read from the table once, not once per statement that scores it. The lengths of
 * the warm-up (sampled_bm25_lengths) are kept in rowid order and looked up from the statement's
 * last one (a statement's hits come in rowid order, so the next is a few entries away, in memory
 * just read), those read one by one in a hash table (a cache miss or two per row of a table that
 * size: most of the scoring's own time on a pool of 10,000 hits). The lengths are
 * dropped whenever the index's structure record (%_data row 10) differs from the one they were read
 * under: every change of a row that holds a token writes it (a new segment, or a tombstone counted
 * in it, and a write counter that only grows), and a row with no token never matches, so it is
 * never scored. The one change it would miss: a 'delete-all' (which resets the counter) and a
 * reload that writes the old record again byte for byte, segment bounds included (the store
 * deletes all only when `migrate-data --force` refills a database; a service reading that file
 * meanwhile could then rank with old lengths until the next change: scores, never matches).
 *
 * Built as a loadable extension by scripts/build-native.mjs against the headers of the SQLite that
 * better-sqlite3 bundles.
 */
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1
#include <math.h>
#include <string.h>

#include "fts5.h"

/*
 * The row lengths a connection has read from one docsize table, valid while the index's structure
 * record is the one they were read under. Kept as the connection's client data; freed with it.
 */
typedef struct LengthCache LengthCache;
struct LengthCache {
  char *zDocsize;         /* the docsize table the lengths come from */
  char *zData;            /* the index's %_data table, which holds the structure record */
  unsigned char *aStruct; /* the structure record the lengths were read under */
  int nStruct;
  /* An open-addressing hash table from rowid to the row's length plus one (0: an empty slot):
   the store's rowids are date keys (large and sparse), not small dense ids. */
  sqlite3_int64 *aKey;
  unsigned int *aLen;
  sqlite3_int64 nSlot;    /* slots in aKey and aLen, a power of two (0 before the first row) */
  sqlite3_int64 nUsed;    /* slots holding a row */
  /* The warm-up's rows, by ascending rowid: aSortedLen[i] is row aSortedKey[i]'s length plus one. */
  sqlite3_int64 *aSortedKey;
  unsigned int *aSortedLen;
  sqlite3_int64 nSorted;
};

/* At most this many slots (48 MiB), half of them used: rows past that are not kept. */
#define LENGTH_CACHE_MAX_SLOTS ((sqlite3_int64)1 << 22)
/* The structure record's id in %_data (FTS5_STRUCTURE_ROWID). */
#define FTS5_STRUCTURE_ROWID 10
#define LENGTH_CACHE_KEY "sampled_bm25 row lengths"

/* Drops the warm-up's rowid-ordered rows (freed, none kept). */
static void sortedLengthsDrop(LengthCache *c) {
  sqlite3_free(c->aSortedKey);
  sqlite3_free(c->aSortedLen);
  c->aSortedKey = 0;
  c->aSortedLen = 0;
  c->nSorted = 0;
}

static void lengthCacheFree(void *pArg) {
  LengthCache *c = (LengthCache *)pArg;
  if (c == 0) return;
  sqlite3_free(c->zDocsize);
  sqlite3_free(c->zData);
  sqlite3_free(c->aStruct);
  sqlite3_free(c->aKey);
  sqlite3_free(c->aLen);
  sortedLengthsDrop(c);
  sqlite3_free(c);
}

/* Whether column i is left out of the lengths (mask RankStats.mOut; columns past 64 never are). */
#define LEFT_OUT(m, i) ((i) < 64 && (((m) >> (i)) & 1))

typedef struct RankStats RankStats;
struct RankStats {
  int nPhrase;
  int nCol;
  sqlite3_uint64 mOut; /* the columns left out of the lengths (negative weights), bit i col i */
  double avgdl;  /* mean document length in tokens (all columns), over the whole index */
  double *aIDF;  /* per phrase */
  double *aFreq; /* per phrase, scratch for the current row */
  sqlite3 *db;
  char *zDocsize;        /* the %_docsize table, or 0 */
  sqlite3_blob *pBlob;   /* its `sz` column, on the last row read */
  int bNoBlob;           /* reading it failed once: xColumnSize from then on */
  LengthCache *pCache;   /* the connection's lengths of this docsize table, or 0 */
  sqlite3_int64 iSorted; /* where in pCache's rowid-ordered rows the last lookup ended */
};

static void rankStatsFree(void *pArg) {
  RankStats *p = (RankStats *)pArg;
  if (p->pBlob != 0) sqlite3_blob_close(p->pBlob);
  sqlite3_free(p->zDocsize);
  sqlite3_free(p);
}

/* One SQLite varint (the format of FTS5's docsize records); 0 when `n` bytes do not hold it. */
static int readVarint(const unsigned char *a, int n, sqlite3_uint64 *pV) {
  sqlite3_uint64 x = 0;
  for (int i = 0; i < 8 && i < n; i++) {
    x = (x << 7) | (a[i] & 0x7f);
    if ((a[i] & 0x80) == 0) {
      *pV = x;
      return i + 1;
    }
  }
  if (n > 8) {
    *pV = (x << 8) | a[8];
    return 9;
  }
  return 0;
}

/*
 * The connection's length cache for `zDocsize`, checked against the index's structure record as
 * the current statement sees it (emptied when that differs); 0 when there is none to use (a table
 * name without the _docsize suffix, a record that cannot be read, no memory). Each docsize table
 * has a cache of its own (the client data's name holds the table's): the store scores from two
 * indexes of the same rows, posts_fts and the clicked posts' index.
 */
static LengthCache *lengthCache(sqlite3 *db, const char *zDocsize) {
  size_t n = strlen(zDocsize);
  const char *suffix = "_docsize";
  if (n <= strlen(suffix) || strcmp(zDocsize + n - strlen(suffix), suffix) != 0) return 0;
  char zKey[160];
  sqlite3_snprintf((int)sizeof(zKey), zKey, "%s %s", LENGTH_CACHE_KEY, zDocsize);
  if (strlen(zKey) != strlen(LENGTH_CACHE_KEY) + 1 + n) return 0; /* a name too long for the key */
  LengthCache *c = (LengthCache *)sqlite3_get_clientdata(db, zKey);
  if (c == 0) {
    c = (LengthCache *)sqlite3_malloc64(sizeof(LengthCache));
    if (c == 0) return 0;
    memset(c, 0, sizeof(LengthCache));
    c->zDocsize = sqlite3_mprintf("%s", zDocsize);
    c->zData = sqlite3_mprintf("%.*s_data", (int)(n - strlen(suffix)), zDocsize);
    if (c->zDocsize == 0 || c->zData == 0 || sqlite3_set_clientdata(db, zKey, c, lengthCacheFree) != SQLITE_OK) {
      lengthCacheFree(c);
      return 0;
    }
  }
  if (strcmp(c->zDocsize, zDocsize) != 0) return 0;
  sqlite3_blob *pStruct = 0;
  int rc = sqlite3_blob_open(db, "main", c->zData, "block", FTS5_STRUCTURE_ROWID, 0, &pStruct);
  int nStruct = rc == SQLITE_OK ? sqlite3_blob_bytes(pStruct) : 0;
  LengthCache *out = 0;
  if (rc == SQLITE_OK && nStruct > 0) {
    unsigned char *aStruct = (unsigned char *)sqlite3_malloc64((sqlite3_uint64)nStruct);
    if (aStruct != 0 && sqlite3_blob_read(pStruct, aStruct, nStruct, 0) == SQLITE_OK) {
      if (nStruct != c->nStruct || memcmp(aStruct, c->aStruct, (size_t)nStruct) != 0) {
        /* The index changed since the lengths were read: start again. */
        sqlite3_free(c->aStruct);
        sqlite3_free(c->aKey);
        sqlite3_free(c->aLen);
        sortedLengthsDrop(c);
        c->aStruct = aStruct;
        c->nStruct = nStruct;
        c->aKey = 0;
        c->aLen = 0;
        c->nSlot = 0;
        c->nUsed = 0;
        aStruct = 0;
      }
      out = c;
    }
    sqlite3_free(aStruct);
  }
  if (pStruct != 0) sqlite3_blob_close(pStruct);
  return out;
}

/* The slot of `iRowid` in a table of `nSlot` slots: its own, or the empty one it would take. */
static sqlite3_int64 lengthSlot(const sqlite3_int64 *aKey, const unsigned int *aLen, sqlite3_int64 nSlot,
                                sqlite3_int64 iRowid) {
  sqlite3_uint64 h = (sqlite3_uint64)iRowid * 0x9E3779B97F4A7C15ULL;
  sqlite3_int64 i = (sqlite3_int64)(h >> 20) & (nSlot - 1);
  while (aLen[i] != 0 && aKey[i] != iRowid) i = (i + 1) & (nSlot - 1);
  return i;
}

/*
 * The length plus one of row `iRowid` among the rowid-ordered rows, or 0; the search starts at
 * *piAt (where the last one ended) and gallops away from it, then halves the interval found, so a
 * hit next to the last costs a comparison or two (exponential search, Bentley and Yao 1976).
 */
static unsigned int sortedLengthGet(const LengthCache *c, sqlite3_int64 *piAt, sqlite3_int64 iRowid) {
  sqlite3_int64 n = c->nSorted;
  if (n == 0) return 0;
  const sqlite3_int64 *a = c->aSortedKey;
  sqlite3_int64 i = *piAt < 0 ? 0 : (*piAt >= n ? n - 1 : *piAt);
  sqlite3_int64 lo;
  sqlite3_int64 hi;
  if (a[i] == iRowid) {
    *piAt = i;
    return c->aSortedLen[i];
  }
  if (a[i] < iRowid) {
    /* Every entry below lo is below iRowid; on leaving, hi is past the end or not below it. */
    sqlite3_int64 step = 1;
    lo = i + 1;
    hi = lo;
    while (hi < n && a[hi] < iRowid) {
      lo = hi + 1;
      hi += step;
      step <<= 1;
    }
    if (hi > n - 1) hi = n - 1;
  } else {
    /* Every entry above hi is above iRowid; on leaving, lo is before the start or not above it. */
    sqlite3_int64 step = 1;
    hi = i - 1;
    lo = hi;
    while (lo >= 0 && a[lo] > iRowid) {
      hi = lo - 1;
      lo -= step;
      step <<= 1;
    }
    if (lo < 0) lo = 0;
  }
  while (lo <= hi) {
    sqlite3_int64 mid = lo + (hi - lo) / 2;
    if (a[mid] < iRowid) {
      lo = mid + 1;
    } else if (a[mid] > iRowid) {
      hi = mid - 1;
    } else {
      *piAt = mid;
      return c->aSortedLen[mid];
    }
  }
  *piAt = lo;
  return 0;
}

/* The kept length of row `iRowid` plus one, or 0 when it was not kept. */
static unsigned int lengthCacheGet(const LengthCache *c, sqlite3_int64 *piAt, sqlite3_int64 iRowid) {
  unsigned int kept = sortedLengthGet(c, piAt, iRowid);
  if (kept != 0 || c->nSlot == 0) return kept;
  return c->aLen[lengthSlot(c->aKey, c->aLen, c->nSlot, iRowid)];
}

/* Keeps `nTok` as the length of row `iRowid`, doubling the table when half full (up to its cap). */
static void lengthCacheKeep(LengthCache *c, sqlite3_int64 iRowid, int nTok) {
  if (nTok < 0) return;
  if ((c->nUsed + 1) * 2 > c->nSlot) {
    sqlite3_int64 nNew = c->nSlot == 0 ? 1024 : c->nSlot * 2;
    if (nNew > LENGTH_CACHE_MAX_SLOTS) return;
    sqlite3_int64 *aKey = (sqlite3_int64 *)sqlite3_malloc64((sqlite3_uint64)nNew * sizeof(sqlite3_int64));
    unsigned int *aLen = (unsigned int *)sqlite3_malloc64((sqlite3_uint64)nNew * sizeof(unsigned int));
    if (aKey == 0 || aLen == 0) {
      sqlite3_free(aKey);
      sqlite3_free(aLen);
      return;
    }
    memset(aLen, 0, (size_t)nNew * sizeof(unsigned int));
    for (sqlite3_int64 j = 0; j < c->nSlot; j++) {
      if (c->aLen[j] == 0) continue;
      sqlite3_int64 k = lengthSlot(aKey, aLen, nNew, c->aKey[j]);
      aKey[k] = c->aKey[j];
      aLen[k] = c->aLen[j];
    }
    sqlite3_free(c->aKey);
    sqlite3_free(c->aLen);
    c->aKey = aKey;
    c->aLen = aLen;
    c->nSlot = nNew;
  }
  sqlite3_int64 i = lengthSlot(c->aKey, c->aLen, c->nSlot, iRowid);
  if (c->aLen[i] == 0) c->nUsed++;
  c->aKey[i] = iRowid;
  c->aLen[i] = (unsigned int)nTok + 1;
}

/* The current row's length in tokens, all columns: from the docsize blob, else from FTS5. */
static int rowLength(const Fts5ExtensionApi *pApi, Fts5Context *pFts, RankStats *p, int *pnTok) {
  if (p->zDocsize != 0 && !p->bNoBlob) {
    sqlite3_int64 iRowid = pApi->xRowid(pFts);
    LengthCache *c = p->pCache;
    unsigned int kept = c != 0 ? lengthCacheGet(c, &p->iSorted, iRowid) : 0;
    if (kept != 0) {
      *pnTok = (int)(kept - 1);
      return SQLITE_OK;
    }
    int rc = p->pBlob == 0
                 ? sqlite3_blob_open(p->db, "main", p->zDocsize, "sz", iRowid, 0, &p->pBlob)
                 : sqlite3_blob_reopen(p->pBlob, iRowid);
    if (rc == SQLITE_OK) {
      unsigned char a[128];
      int n = sqlite3_blob_bytes(p->pBlob);
      if (n > 0 && n <= (int)sizeof(a) && sqlite3_blob_read(p->pBlob, a, n, 0) == SQLITE_OK) {
        sqlite3_uint64 total = 0;
        int off = 0;
        int i = 0;
        for (; i < p->nCol; i++) {
          sqlite3_uint64 v = 0;
          int used = readVarint(a + off, n - off, &v);
          if (used == 0) break;
          off += used;
          if (!LEFT_OUT(p->mOut, i)) total += v;
        }
        if (i == p->nCol && total < 0x7fffffff) {
          *pnTok = (int)total;
          if (c != 0) lengthCacheKeep(c, iRowid, *pnTok);
          return SQLITE_OK;
        }
      }
    }
    p->bNoBlob = 1;
    if (p->pBlob != 0) {
      sqlite3_blob_close(p->pBlob);
      p->pBlob = 0;
    }
  }
  int rc = pApi->xColumnSize(pFts, -1, pnTok);
  for (int i = 0; rc == SQLITE_OK && i < p->nCol; i++) {
    int nOut = 0;
    if (LEFT_OUT(p->mOut, i)) rc = pApi->xColumnSize(pFts, i, &nOut);
    *pnTok -= nOut;
  }
  return rc;
}

static int countHit(const Fts5ExtensionApi *pApi, Fts5Context *pFts, void *pUser) {
  (void)pApi;
  (void)pFts;
  (*(sqlite3_int64 *)pUser)++;
  return SQLITE_OK;
}

static double inverseFrequency(double nDoc, double nHit) {
  /* As fts5Bm25GetData: a phrase in more than half the documents gets a tiny positive weight. */
  double idf = log((nDoc - nHit + 0.5) / (nHit + 0.5));
  return idf <= 0.0 ? 1e-6 : idf;
}

/* The statistics of the current statement, computed on its first row and kept as aux data. */
static int rankStats(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx,
                     int nVal, sqlite3_value **apVal, sqlite3_value **apTotals, RankStats **ppOut) {
  RankStats *p = (RankStats *)pApi->xGetAuxdata(pFts, 0);
  int rc = SQLITE_OK;
  if (p != 0) {
    *ppOut = p;
    return SQLITE_OK;
  }
  int nCol = pApi->xColumnCount(pFts);
  int nPhrase = pApi->xPhraseCount(pFts);
  if (nVal != 1 + nCol + 1 + nPhrase) {
    char *zErr = sqlite3_mprintf(
        "sampled_bm25: expected %d arguments after the table (the docsize table, %d column "
        "weights, the document count, %d phrase counts), got %d",
        1 + nCol + 1 + nPhrase, nCol, nPhrase, nVal);
    sqlite3_result_error(pCtx, zErr, -1);
    sqlite3_free(zErr);
    return SQLITE_MISUSE;
  }
  sqlite3_uint64 mOut = 0;
  for (int i = 0; i < nCol && i < 64; i++) {
    if (sqlite3_value_double(apVal[1 + i]) < 0) mOut |= (sqlite3_uint64)1 << i;
  }
  sqlite3_int64 nRow = 0;
  sqlite3_int64 nToken = 0;
  if (apTotals != 0) {
    /* Another index's totals (sampled_bm25_over), whose phrase counts come as arguments too. */
    if (sqlite3_value_type(apVal[1 + nCol]) == SQLITE_NULL) {
      sqlite3_result_error(pCtx, "sampled_bm25_over: the document count N must be given", -1);
      return SQLITE_MISUSE;
    }
    nRow = sqlite3_value_int64(apTotals[0]);
    nToken = sqlite3_value_int64(apTotals[1]);
  } else {
    rc = pApi->xRowCount(pFts, &nRow);
    if (rc == SQLITE_OK) rc = pApi->xColumnTotalSize(pFts, -1, &nToken);
    for (int i = 0; rc == SQLITE_OK && i < nCol; i++) {
      sqlite3_int64 nOut = 0;
      if (LEFT_OUT(mOut, i)) rc = pApi->xColumnTotalSize(pFts, i, &nOut);
      nToken -= nOut;
    }
    if (rc != SQLITE_OK) return rc;
  }
  if (nRow <= 0) nRow = 1;
  p = (RankStats *)sqlite3_malloc64(sizeof(RankStats) + sizeof(double) * 2 * (sqlite3_int64)nPhrase);
  if (p == 0) return SQLITE_NOMEM;
  memset(p, 0, sizeof(RankStats) + sizeof(double) * 2 * (size_t)nPhrase);
  p->nPhrase = nPhrase;
  p->nCol = nCol;
  p->mOut = mOut;
  p->db = sqlite3_context_db_handle(pCtx);
  if (sqlite3_value_type(apVal[0]) == SQLITE_TEXT) {
    p->zDocsize = sqlite3_mprintf("%s", (const char *)sqlite3_value_text(apVal[0]));
    if (p->zDocsize == 0) {
      sqlite3_free(p);
      return SQLITE_NOMEM;
    }
    p->pCache = lengthCache(p->db, p->zDocsize);
  }
  p->aIDF = (double *)&p[1];
  p->aFreq = &p->aIDF[nPhrase];
  p->avgdl = (double)nToken / (double)nRow;
  int sampled = sqlite3_value_type(apVal[1 + nCol]) != SQLITE_NULL;
  for (int i = 0; rc == SQLITE_OK && i < nPhrase; i++) {
    sqlite3_value *count = apVal[1 + nCol + 1 + i];
    if (sqlite3_value_type(count) != SQLITE_NULL && sqlite3_value_double(count) < 0) {
      /* A negative count: a phrase that narrows the match without weighing in the score. */
      p->aIDF[i] = 0.0;
    } else if (sampled) {
      p->aIDF[i] = inverseFrequency(sqlite3_value_double(apVal[1 + nCol]),
                                    sqlite3_value_double(apVal[1 + nCol + 1 + i]));
    } else {
      sqlite3_int64 nHit = 0;
      rc = pApi->xQueryPhrase(pFts, i, (void *)&nHit, countHit);
      p->aIDF[i] = inverseFrequency((double)nRow, (double)nHit);
    }
  }
  if (rc == SQLITE_OK) rc = pApi->xSetAuxdata(pFts, p, rankStatsFree);
  else rankStatsFree(p);
  if (rc == SQLITE_OK) *ppOut = p;
  return rc;
}

static void sampledBm25(const Fts5ExtensionApi *pApi, Fts5Context *pFts, sqlite3_context *pCtx,
                        int nVal, sqlite3_value **apVal) {
  const double k1 = 1.2;
  const double b = 0.75;
  RankStats *p = 0;
  /* sampled_bm25_over: the two totals first, then sampled_bm25's own arguments. */
  sqlite3_value **apTotals = 0;
  if (pApi->xUserData(pFts) != 0) {
    if (nVal < 2) {
      sqlite3_result_error(pCtx, "sampled_bm25_over: expected the row and token totals first", -1);
      return;
    }
    apTotals = apVal;
    apVal += 2;
    nVal -= 2;
  }
  int rc = rankStats(pApi, pFts, pCtx, nVal, apVal, apTotals, &p);
  if (rc == SQLITE_MISUSE) return; /* the message is already set */
  int nInst = 0;
  if (rc == SQLITE_OK) {
    memset(p->aFreq, 0, sizeof(double) * (size_t)p->nPhrase);
    rc = pApi->xInstCount(pFts, &nInst);
  }
  for (int i = 0; rc == SQLITE_OK && i < nInst; i++) {
    int ip = 0;
    int ic = 0;
    int io = 0;
    rc = pApi->xInst(pFts, i, &ip, &ic, &io);
    if (rc == SQLITE_OK) p->aFreq[ip] += fabs(sqlite3_value_double(apVal[1 + ic]));
  }
  int nTok = 0;
  if (rc == SQLITE_OK) rc = rowLength(pApi, pFts, p, &nTok);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(pCtx, rc);
    return;
  }
  double D = (double)nTok;
  double score = 0.0;
  for (int i = 0; i < p->nPhrase; i++) {
    score += p->aIDF[i] * ((p->aFreq[i] * (k1 + 1.0)) /
                           (p->aFreq[i] + k1 * (1 - b + b * D / p->avgdl)));
  }
  sqlite3_result_double(pCtx, score);
}

/*
 * SQL: sampled_bm25_lengths(docsize, nCol): reads every row's length (its first nCol columns: the
 * columns a negative weight leaves out come last) from the docsize table into
 * the connection's length cache, newest rows (highest rowids) first, until the cache is full;
 * returns how many it read. A warm-up: a connection's first search then reads no lengths row by
 * row (a seek in the docsize table per hit scored), the length of every row being what
 * `sampled_bm25` would read and keep itself. They are kept in rowid order (LengthCache), replacing
 * those of an earlier call.
 */
static void loadLengths(sqlite3_context *pCtx, int nVal, sqlite3_value **apVal) {
  (void)nVal;
  sqlite3 *db = sqlite3_context_db_handle(pCtx);
  const char *zDocsize = (const char *)sqlite3_value_text(apVal[0]);
  int nCol = sqlite3_value_int(apVal[1]);
  LengthCache *c = zDocsize != 0 && nCol > 0 ? lengthCache(db, zDocsize) : 0;
  if (c == 0) {
    sqlite3_result_int64(pCtx, 0);
    return;
  }
  sortedLengthsDrop(c);
  char *zSql = sqlite3_mprintf("SELECT id, sz FROM main.\"%w\" ORDER BY id DESC", zDocsize);
  sqlite3_stmt *pStmt = 0;
  int rc = zSql == 0 ? SQLITE_NOMEM : sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  sqlite3_free(zSql);
  sqlite3_int64 *aKey = 0;
  unsigned int *aLen = 0;
  sqlite3_int64 nAlloc = 0;
  sqlite3_int64 n = 0;
  /* As many rows as the hash table held before it (half its slots), so as many as then. */
  while (rc == SQLITE_OK && n < LENGTH_CACHE_MAX_SLOTS / 2 && sqlite3_step(pStmt) == SQLITE_ROW) {
    const unsigned char *a = (const unsigned char *)sqlite3_column_blob(pStmt, 1);
    int nByte = sqlite3_column_bytes(pStmt, 1);
    sqlite3_uint64 total = 0;
    int off = 0;
    int i = 0;
    for (; a != 0 && i < nCol; i++) {
      sqlite3_uint64 v = 0;
      int used = readVarint(a + off, nByte - off, &v);
      if (used == 0) break;
      off += used;
      total += v;
    }
    /* As rowLength: a record it could not read is left to be read (and fail) there. */
    if (i != nCol || total >= 0x7fffffff) continue;
    if (n == nAlloc) {
      sqlite3_int64 nNew = nAlloc == 0 ? 1024 : nAlloc * 2;
      sqlite3_int64 *aKeyNew =
          (sqlite3_int64 *)sqlite3_realloc64(aKey, (sqlite3_uint64)nNew * sizeof(sqlite3_int64));
      if (aKeyNew != 0) aKey = aKeyNew;
      unsigned int *aLenNew =
          (unsigned int *)sqlite3_realloc64(aLen, (sqlite3_uint64)nNew * sizeof(unsigned int));
      if (aLenNew != 0) aLen = aLenNew;
      if (aKeyNew == 0 || aLenNew == 0) {
        rc = SQLITE_NOMEM;
        break;
      }
      nAlloc = nNew;
    }
    aKey[n] = sqlite3_column_int64(pStmt, 0);
    aLen[n] = (unsigned int)total + 1;
    n++;
  }
  if (pStmt != 0) {
    int rcFinal = sqlite3_finalize(pStmt);
    if (rc == SQLITE_OK) rc = rcFinal;
  }
  if (rc != SQLITE_OK) {
    sqlite3_free(aKey);
    sqlite3_free(aLen);
    sqlite3_result_error_code(pCtx, rc);
    return;
  }
  /* Read newest first (the rows kept when the cap cuts them off); kept in ascending order. */
  for (sqlite3_int64 i = 0, j = n - 1; i < j; i++, j--) {
    sqlite3_int64 k = aKey[i];
    aKey[i] = aKey[j];
    aKey[j] = k;
    unsigned int l = aLen[i];
    aLen[i] = aLen[j];
    aLen[j] = l;
  }
  c->aSortedKey = aKey;
  c->aSortedLen = aLen;
  c->nSorted = n;
  sqlite3_result_int64(pCtx, n);
}

/* The fts5_api of a connection, as https://sqlite.org/fts5.html#extending_fts5 obtains it. */
static fts5_api *fts5Api(sqlite3 *db) {
  fts5_api *pRet = 0;
  sqlite3_stmt *pStmt = 0;
  if (sqlite3_prepare(db, "SELECT fts5(?1)", -1, &pStmt, 0) == SQLITE_OK) {
    sqlite3_bind_pointer(pStmt, 1, (void *)&pRet, "fts5_api_ptr", 0);
    sqlite3_step(pStmt);
  }
  sqlite3_finalize(pStmt);
  return pRet;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_sampledbm_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi) {
  SQLITE_EXTENSION_INIT2(pApi);
  fts5_api *fts5 = fts5Api(db);
  if (fts5 == 0 || fts5->iVersion < 2) {
    *pzErrMsg = sqlite3_mprintf("sampled_bm25 needs FTS5 (fts5_api version 2 or later)");
    return SQLITE_ERROR;
  }
  int rc = fts5->xCreateFunction(fts5, "sampled_bm25", 0, sampledBm25, 0);
  /* Any non-zero user data marks the variant with another index's totals. */
  static int over = 1;
  if (rc == SQLITE_OK) rc = fts5->xCreateFunction(fts5, "sampled_bm25_over", &over, sampledBm25, 0);
  if (rc != SQLITE_OK) return rc;
  return sqlite3_create_function(db, "sampled_bm25_lengths", 2, SQLITE_UTF8, 0, loadLengths, 0, 0);
}
