// repdiff: run the direct runner inside pyodide, i.e. inside the real CPython
// 3.15.0rc1 (compiled to wasm), offline, under node >= 20.
// usage: node verify_cpython315.mjs <pyodide dir> <runner.py> <request.json> <reply.json>
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [indexDir, runnerPath, requestPath, replyPath] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(indexDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: path.resolve(indexDir) + "/" });
pyodide.runPython(readFileSync(runnerPath, "utf8"));
const reply = JSON.parse(pyodide.globals.get("run")(readFileSync(requestPath, "utf8")));
// Which robotparser.py this interpreter really imports.
reply.robotparser_sha256 = pyodide.runPython(`
import hashlib, urllib.robotparser as _r
hashlib.sha256(_r.__loader__.get_data(_r.__file__)).hexdigest()
`);
writeFileSync(replyPath, JSON.stringify(reply));
