// Asserts on one MCP Inspector CLI output (JSON on stdout, saved to a file).
// usage: node check.mjs CHECK FILE   -> exit 0 when the check holds, else 1 with the reason on stdout.
import { readFileSync } from "node:fs";

const STATIC_TEXT = "This is the content of the static text resource.";

const checks = {
  // --method tools/list
  "tools-list": (out) => {
    const names = (out.tools ?? []).map((t) => t.name);
    if (!names.includes("add")) return `no tool "add" in [${names.join(", ")}]`;
  },
  // --method tools/call --tool-name add --tool-arg a=2 --tool-arg b=3
  "call-add": (out) => {
    if (out.isError === true) return `isError: ${JSON.stringify(out.content)}`;
    const text = out.content?.[0]?.text;
    if (out.content?.length !== 1 || text !== "5") return `content is ${JSON.stringify(out.content)}, want one text "5"`;
  },
  // --method resources/read --uri test://static-text
  "read-static-text": (out) => {
    const text = out.contents?.[0]?.text;
    if (text !== STATIC_TEXT) return `contents are ${JSON.stringify(out.contents)}, want text ${JSON.stringify(STATIC_TEXT)}`;
  },
  // --method prompts/get --prompt-name test_prompt_with_arguments --prompt-args arg1=x arg2=y
  "prompt-with-arguments": (out) => {
    const want = "Prompt with arguments: arg1='x', arg2='y'";
    const text = out.messages?.[0]?.content?.text;
    if (text !== want) return `messages are ${JSON.stringify(out.messages)}, want text ${JSON.stringify(want)}`;
  },
};

const [name, file] = process.argv.slice(2);
const check = checks[name];
if (!check || !file) {
  console.log(`usage: check.mjs {${Object.keys(checks).join("|")}} FILE`);
  process.exit(2);
}
let out;
try {
  out = JSON.parse(readFileSync(file, "utf8"));
} catch (e) {
  const head = readFileSync(file, "utf8").slice(0, 300);
  console.log(`output is not JSON (${e.message}): ${JSON.stringify(head)}`);
  process.exit(1);
}
const failure = check(out);
if (failure) {
  console.log(failure);
  process.exit(1);
}
