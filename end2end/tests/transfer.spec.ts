import { test, expect } from "@playwright/test";
import * as http from "node:http";

// What crosses the wire, read with a plain HTTP client so nothing is decoded on the way: the bundle goes out
// precompressed (zstd where accepted, else gzip), pages compressed on the fly, live events never.
const base = new URL(process.env.LG_BASE_URL ?? "http://127.0.0.1:3700");

function get(path: string, acceptEncoding: string): Promise<{ status: number; encoding?: string; type?: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: base.hostname, port: base.port, path, headers: { "accept-encoding": acceptEncoding } },
      (response) => {
        let bytes = 0;
        response.on("data", (chunk: Buffer) => (bytes += chunk.length));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            encoding: response.headers["content-encoding"],
            type: response.headers["content-type"],
            bytes,
          }),
        );
      },
    );
    request.on("error", reject);
  });
}

test("the browser bundle and pages travel compressed", async () => {
  const plain = await get("/pkg/latency-guard.wasm", "identity");
  const zstd = await get("/pkg/latency-guard.wasm", "zstd, gzip, br");
  const gzip = await get("/pkg/latency-guard.wasm", "gzip");
  expect([plain.status, zstd.status, gzip.status]).toEqual([200, 200, 200]);
  expect([plain.encoding, zstd.encoding, gzip.encoding]).toEqual([undefined, "zstd", "gzip"]);
  expect(zstd.type).toBe("application/wasm");
  expect(zstd.bytes).toBeLessThan(gzip.bytes);
  expect(gzip.bytes).toBeLessThan(plain.bytes / 2);
  const script = await get("/pkg/latency-guard.js", "gzip");
  expect(script.encoding).toBe("gzip");
  const login = await get("/login", "gzip");
  expect([login.status, login.encoding]).toEqual([200, "gzip"]);
  console.log(`bundle on the wire: ${plain.bytes} B plain, ${gzip.bytes} B gzip, ${zstd.bytes} B zstd`);
});
