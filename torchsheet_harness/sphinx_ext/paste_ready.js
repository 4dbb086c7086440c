// torchsheet: what the copy button yields also pastes at the classic `python` prompt (3.10-3.12),
// which runs a compound statement when it reads a blank line. So a blank line inside an indented
// body is dropped (it would end the body there), and a blank line goes before a top-level line
// that follows an indented body (without it the prompt reads that line as part of the body).
// The text ends with one line break: Python 3.13's REPL and IPython then take a pasted block
// at the reader's one Enter (without it, the 3.13 REPL waits for a second one).
// Python port and the rule's limits: torchsheet_harness/pages/copy_text.py (paste_ready).
function pasteReady(text) {
  const lines = text.split('\n');
  const isBlank = line => line.trim() === '';
  const isIndented = line => /^[ \t]/.test(line);
  const continuesAbove = /^([)\]}]|(else|elif|except|finally)\b)/;
  const out = [];
  let afterBody = false;  // the last code line was indented
  lines.forEach((line, index) => {
    if (isBlank(line)) {
      const next = lines.slice(index + 1).find(l => !isBlank(l));
      if (next === undefined || !isIndented(next)) out.push('');
      return;
    }
    if (line.startsWith('#')) {
      out.push(line);
      return;
    }
    if (!isIndented(line) && afterBody && !continuesAbove.test(line)
        && out.length > 0 && !isBlank(out[out.length - 1])) {
      out.push('');
    }
    out.push(line);
    afterBody = isIndented(line);
  });
  while (out.length > 0 && isBlank(out[out.length - 1])) out.pop();
  return out.length > 0 ? out.join('\n') + '\n' : '';
}

function formatCopyText(...args) {
  return pasteReady(formatCopyTextOfCopybutton(...args));
}
