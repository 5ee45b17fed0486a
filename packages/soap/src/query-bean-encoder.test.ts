import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { compileQueryBeanEncoder, RowMemo } from "./query-bean-encoder.js";
import type { CellValue, ColumnSpec } from "./service-types.js";
import { SoapError } from "./soap-error.js";
import { child, parseXmlTree, type XmlNode } from "./test-support/xml-tree.js";

const env = "http://schemas.xmlsoap.org/soap/envelope/";
const enc = "http://schemas.xmlsoap.org/soap/encoding/";
const xsi = "http://www.w3.org/2001/XMLSchema-instance";
const columns: ColumnSpec[] = [
  { name: "postId", type: "int" },
  { name: "postTitle", type: "string" },
  { name: "score", type: "double" },
  { name: "postDate", type: "dateTime" },
];
const encode = compileQueryBeanEncoder("search", columns, "http://webservices", "http://rpc.xml.coldfusion");
/** The same encoder keeping its rows' encoded cells in `memo`. */
const encoderWith = (memo: RowMemo) =>
  compileQueryBeanEncoder("search", columns, "http://webservices", "http://rpc.xml.coldfusion", memo);

function multiRef(xml: string): { body: XmlNode; bean: XmlNode } {
  const envelope = parseXmlTree(xml);
  assert.equal(envelope.uri, env);
  const body = child(envelope, "Body");
  return { body, bean: child(body, "multiRef") };
}

/** Each row as [xsi:type or "nil", text] pairs, read element by element. */
function cells(bean: XmlNode): string[][][] {
  return child(bean, "data").children.map((row) =>
    row.children.map((cell) => {
      assert.equal(cell.local, "data");
      if (cell.attributesNs[`{${xsi}}nil`] === "true") {
        assert.equal(cell.attributes["xsi:type"], undefined, "a nil cell carries no xsi:type");
        return ["nil", cell.text];
      }
      return [cell.attributes["xsi:type"]!, cell.text];
    }),
  );
}

describe("QueryBean response encoding (Axis 1.x shape)", () => {
  test("the response element refers by href to a multiRef QueryBean sibling", () => {
    const xml = encode({ rows: [[1, "a", 0.5, new Date(0)]] });
    assert.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>'));
    const { body, bean } = multiRef(xml);
    const response = body.children[0]!;
    assert.equal(response.name, "ns1:searchResponse");
    assert.equal(response.uri, "http://webservices");
    assert.equal(response.attributesNs[`{${env}}encodingStyle`], enc);
    assert.equal(child(response, "searchReturn").attributes.href, "#id0");
    assert.equal(body.children[1], bean);
    assert.equal(bean.attributes.id, "id0");
    assert.equal(bean.attributesNs[`{${enc}}root`], "0");
    assert.equal(bean.attributesNs[`{${env}}encodingStyle`], enc);
    assert.equal(bean.attributes["xsi:type"], "ns2:QueryBean");
    assert.equal(bean.attributes["xmlns:ns2"], "http://rpc.xml.coldfusion");
    assert.deepEqual(
      bean.children.map((c) => c.name),
      ["columnList", "data"],
    );
  });

  test("the whole envelope, byte for byte, for a one-row result with a null (the Axis 1.x shape)", () => {
    const small = compileQueryBeanEncoder(
      "getLanguages",
      [
        { name: "languageId", type: "int" },
        { name: "languageName", type: "string" },
      ],
      "http://webservices",
      "http://rpc.xml.coldfusion",
    );
    assert.equal(
      small({ rows: [[1, null]] }),
      '<?xml version="1.0" encoding="UTF-8"?>' +
        '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
        "<soapenv:Body>" +
        '<ns1:getLanguagesResponse soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://webservices">' +
        '<getLanguagesReturn href="#id0"/></ns1:getLanguagesResponse>' +
        '<multiRef id="id0" soapenc:root="0" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="ns2:QueryBean" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns2="http://rpc.xml.coldfusion">' +
        '<columnList soapenc:arrayType="xsd:string[2]" xsi:type="soapenc:Array">' +
        '<columnList xsi:type="xsd:string">languageId</columnList><columnList xsi:type="xsd:string">languageName</columnList>' +
        "</columnList>" +
        '<data soapenc:arrayType="xsd:anyType[][1]" xsi:type="soapenc:Array">' +
        '<data soapenc:arrayType="xsd:anyType[2]" xsi:type="soapenc:Array">' +
        '<data xsi:type="xsd:int">1</data><data xsi:nil="true"/>' +
        "</data></data></multiRef></soapenv:Body></soapenv:Envelope>",
    );
  });

  test("columnList: a soapenc:Array of xsd:string items that repeat its name", () => {
    const list = child(multiRef(encode({ rows: [] })).bean, "columnList");
    assert.equal(list.attributes["soapenc:arrayType"], "xsd:string[4]");
    assert.equal(list.attributes["xsi:type"], "soapenc:Array");
    assert.deepEqual(
      list.children.map((c) => [c.name, c.attributes["xsi:type"], c.text]),
      columns.map((c) => ["columnList", "xsd:string", c.name]),
    );
  });

  test("data: anyType[][R] of anyType[N] rows; each cell typed by its column, nulls in their place", () => {
    const { bean } = multiRef(
      encode({
        rows: [
          [1, 'Grüße <b> & "q"', 2, Date.UTC(2024, 1, 29, 1, 2, 3, 4)],
          [2, null, null, null],
          [null, "x", 1.5e-7, new Date(Date.UTC(1999, 0, 1))],
        ],
      }),
    );
    const data = child(bean, "data");
    assert.equal(data.attributes["soapenc:arrayType"], "xsd:anyType[][3]");
    assert.equal(data.attributes["xsi:type"], "soapenc:Array");
    for (const row of data.children) {
      assert.equal(row.attributes["soapenc:arrayType"], "xsd:anyType[4]");
      assert.equal(row.attributes["xsi:type"], "soapenc:Array");
    }
    assert.deepEqual(cells(bean), [
      [
        ["xsd:int", "1"],
        ["xsd:string", 'Grüße <b> & "q"'],
        ["xsd:double", "2"],
        ["xsd:dateTime", "2024-02-29T01:02:03.004Z"],
      ],
      [
        ["xsd:int", "2"],
        ["nil", ""],
        ["nil", ""],
        ["nil", ""],
      ],
      [
        ["nil", ""],
        ["xsd:string", "x"],
        ["xsd:double", "1.5e-7"],
        ["xsd:dateTime", "1999-01-01T00:00:00.000Z"],
      ],
    ]);
  });

  test("an empty string cell holds an empty CDATA section, so that zeep keeps it in its place", () => {
    // zeep (4.2) drops an array item whose typed element has no text node, shortening the row.
    const xml = encode({
      rows: [
        [1, "", 0, 0],
        [2, "\u0001", 0, 0],
      ],
    });
    assert.equal(xml.split('<data xsi:type="xsd:string"><![CDATA[]]></data>').length, 3);
    assert.deepEqual(
      cells(multiRef(xml).bean).map((row) => row[1]),
      [
        ["xsd:string", ""],
        ["xsd:string", ""],
      ],
    );
  });

  test("dateTime: zero-padded UTC with milliseconds, the same as toISOString for every year", () => {
    const instants = [
      Date.UTC(2024, 0, 5, 3, 4, 5, 6),
      Date.UTC(2024, 11, 31, 23, 59, 59, 99),
      Date.UTC(500, 5, 6, 7, 8, 9, 10),
      Date.UTC(12000, 0, 1),
      -1,
    ];
    const { bean } = multiRef(encode({ rows: instants.map((t) => [1, "", 0, t]) }));
    assert.deepEqual(
      cells(bean).map((row) => row[3]![1]),
      instants.map((t) => new Date(t).toISOString()),
    );
    assert.equal(cells(bean)[0]![3]![1], "2024-01-05T03:04:05.006Z");
  });

  test("an empty result keeps its columnList and writes data as anyType[][0]", () => {
    const { bean } = multiRef(encode({ rows: [] }));
    assert.equal(child(bean, "columnList").children.length, 4);
    const data = child(bean, "data");
    assert.equal(data.attributes["soapenc:arrayType"], "xsd:anyType[][0]");
    assert.equal(data.children.length, 0);
  });

  test("characters XML 1.0 forbids never reach the wire; text stays parseable", () => {
    const { bean } = multiRef(
      encode({ rows: [[1, "a\u0000b\u0008c\u000Bd\uFFFEe\uD800f\uDC00g 😀\tok", 0, 0]] }),
    );
    assert.equal(cells(bean)[0]![1]![1], "abcdefg 😀\tok");
  });

  test("non-finite doubles use the xsd:double spellings; numeric text is accepted for int", () => {
    const { bean } = multiRef(
      encode({
        rows: [
          ["7", String(3), Number.NaN, 0],
          [8, "", Number.NEGATIVE_INFINITY, 0],
        ],
      }),
    );
    assert.deepEqual(
      cells(bean).map((row) => row[2]![1]),
      ["NaN", "-INF"],
    );
    assert.equal(cells(bean)[0]![0]![1], "7");
  });

  test("a value that does not fit its column is refused, naming row, column and value", () => {
    const refused = (row: unknown[], pattern: RegExp) =>
      assert.throws(
        () => encode({ rows: [row as never] }),
        (e: unknown) => e instanceof SoapError && e.code === "SOAP_INVALID_CELL" && pattern.test(e.message),
      );
    refused([1.5, "", 0, 0], /Row 0, column postId \(int\) holds 1\.5; expected a whole number/);
    refused(
      [2147483648, "", 0, 0],
      /holds 2147483648; expected a whole number from -2147483648 to 2147483647/,
    );
    refused(["-2147483649", "", 0, 0], /holds "-2147483649"/);
    refused([Number.NaN, "", 0, 0], /holds NaN/);
    refused([1, "", "high", 0], /column score \(double\) holds "high"/);
    refused([1, "", 0, "not a date"], /column postDate \(dateTime\) holds "not a date"/);
    refused([1, ""], /Row 0 has 2 cells; operation search returns 4 columns/);
  });

  test("in slices: the same bytes as in one piece, and other callbacks run between the slices", async () => {
    const row = (i: number) => [i, `post ${i} — Grüße & <b>`, i / 7, Date.UTC(2025, 0, 1) + i * 1000];
    for (const count of [0, 1, 99, 100, 101, 250]) {
      const bean = { rows: Array.from({ length: count }, (_, i) => row(i)) };
      const whole = Buffer.from(encode(bean), "utf8");
      // setImmediate callbacks queued before the encoding starts run before its second slice.
      let ranBetween = false;
      setImmediate(() => {
        ranBetween = true;
      });
      const sliced = await encode.inSlices(bean, 50);
      assert.ok(sliced.equals(whole), `${count} rows: the sliced bytes differ`);
      assert.equal(ranBetween, count > 50, `${count} rows: whether the loop turned between slices`);
    }
  });

  test("in slices: rows of one-byte, CJK and astral text past the first buffer give the bytes of the whole", async () => {
    // Rows are written one by one into a buffer that grows: one-byte and two-byte rows mixed, 4-byte
    // characters (surrogate pairs), and several times the buffer's first size.
    const texts = ["Grüße, café & <tag>", "新しい記事の一覧です", "emoji 😀 and 𝄞 notes", "plain ascii"];
    const row = (i: number) => [
      i,
      `${texts[i % texts.length]!} ${"x".repeat(i % 7)}`.repeat(60),
      i / 3,
      i * 1000,
    ];
    const bean = { rows: Array.from({ length: 700 }, (_, i) => row(i)) };
    const whole = Buffer.from(encode(bean), "utf8");
    assert.ok(whole.length > 1024 * 1024);
    assert.ok((await encode.inSlices(bean, 100)).equals(whole));
  });

  test("in slices: a bad cell in a later slice rejects with the same error, naming its row", async () => {
    const rows = Array.from({ length: 120 }, (_, i) => [i, "", 0, 0]);
    rows[110] = [1.5, "", 0, 0];
    await assert.rejects(
      encode.inSlices({ rows }, 50),
      (e: unknown) =>
        e instanceof SoapError && e.code === "SOAP_INVALID_CELL" && /^Row 110, column postId/.test(e.message),
    );
  });

  test("with a row memo: every answer has the bytes of the encoding without it, as rows change, come and go", async () => {
    const memo = new RowMemo({ cells: 4, maxRows: 1000 });
    const memoized = encoderWith(memo);
    const texts = ["Grüße & <b>", "新しい記事", "emoji 😀", "", "plain"];
    let rows: CellValue[][] = Array.from({ length: 300 }, (_, i) => [
      i,
      texts[i % 5]!,
      i / 7,
      Date.UTC(2025, 0, 1) + i,
    ]);
    const check = async (label: string) => {
      // Fresh arrays, strings and Dates each time, as rows from a query are.
      const fresh = (cell: CellValue) =>
        typeof cell === "string"
          ? `${cell} `.trimEnd()
          : cell instanceof Date
            ? new Date(cell.getTime())
            : cell;
      const bean = { rows: rows.map((row) => row.map(fresh)) };
      const bytes = await memoized.inSlices(bean, 50);
      assert.ok(bytes.equals(Buffer.from(encode(bean), "utf8")), label);
    };
    await check("first: every row encoded and kept");
    assert.equal(memo.size, 300);
    await check("again: every row from the memo");
    rows = rows.map((row, i) => (i % 3 === 0 ? [row[0]!, `changed ${i}`, row[2]!, row[3]!] : row));
    await check("a third of the rows changed their text");
    rows = rows.map((row, i) => (i % 4 === 0 ? [row[0]!, row[1]!, null, row[3]!] : row));
    await check("a quarter with a nil cell");
    rows = rows.map((row, i) =>
      i % 5 === 0 ? [row[0]!, row[1]!, row[2]!, new Date(Number(row[3]) + 1)] : row,
    );
    await check("a fifth with a later Date");
    await check("the same Dates again, as other Date objects");
    rows = [...rows.slice(100), ...Array.from({ length: 50 }, (_, i) => [1000 + i, "new", 1, 0])];
    await check("rows gone, new rows at the end");
  });

  test("with a row memo of the leading cells: the rest is encoded each time; a full memo starts again", async () => {
    const memo = new RowMemo({ cells: 2, maxRows: 120 });
    const memoized = encoderWith(memo);
    for (const [round, count] of [
      [0, 101],
      [1, 101],
      [2, 130],
      [3, 101],
    ] as const) {
      const bean = {
        rows: Array.from({ length: count }, (_, i) => [i + round * 50, `post ${i}`, round + i / 3, i * 1000]),
      };
      assert.ok(
        (await memoized.inSlices(bean, 50)).equals(Buffer.from(encode(bean), "utf8")),
        `round ${round}`,
      );
      assert.ok(memo.size <= 120, `round ${round}: ${memo.size} rows kept`);
    }
    const rows = Array.from({ length: 120 }, (_, i) => [i, "", 0, 0]);
    rows[110] = [110, "", 0, "not a date"];
    await assert.rejects(
      memoized.inSlices({ rows }, 50),
      (e: unknown) => e instanceof SoapError && /^Row 110, column postDate/.test(e.message),
    );
  });
});
