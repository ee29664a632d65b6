/**
 * A safe arithmetic evaluator (recursive descent; no `eval`, no identifiers).
 * Grammar: expr := term (("+"|"-") term)* ; term := unary (("*"|"/"|"%") unary)* ;
 * unary := ("+"|"-") unary | power ; power := atom ("^" unary)? ; atom := number | "(" expr ")".
 * Numbers: `12`, `3.5`, `.5`, `1e3`. Whitespace is ignored; `×`/`÷` are accepted for `*`/`/`.
 */
export class CalcSyntaxError extends Error {}
export class CalcMathError extends Error {}

const MAX_LEN = 500;

export function evaluateExpression(input: string): number {
  if (input.length > MAX_LEN) throw new CalcSyntaxError(`expression longer than ${MAX_LEN} characters`);
  const src = input.replace(/×/g, "*").replace(/÷/g, "/");
  let pos = 0;
  let depth = 0;
  const peek = () => {
    while (pos < src.length && /\s/.test(src[pos])) pos++;
    return src[pos];
  };
  const fail = (msg: string): never => {
    throw new CalcSyntaxError(`${msg} at position ${pos}`);
  };
  const number = (): number => {
    const m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(src.slice(pos));
    if (!m) return fail("expected a number");
    pos += m[0].length;
    return Number(m[0]);
  };
  const atom = (): number => {
    const c = peek();
    if (c === "(") {
      pos++;
      if (++depth > 100) fail("too deeply nested");
      const v = expr();
      if (peek() !== ")") fail("expected ')'");
      pos++;
      depth--;
      return v;
    }
    if (c === undefined) return fail("unexpected end of expression");
    return number();
  };
  const power = (): number => {
    const base = atom();
    if (peek() === "^") {
      pos++;
      return base ** unary();
    }
    return base;
  };
  const unary = (): number => {
    const c = peek();
    if (c === "-" || c === "+") {
      pos++;
      if (++depth > 100) fail("too deeply nested");
      const v = unary();
      depth--;
      return c === "-" ? -v : v;
    }
    return power();
  };
  const term = (): number => {
    let v = unary();
    for (;;) {
      const c = peek();
      if (c !== "*" && c !== "/" && c !== "%") return v;
      pos++;
      const r = unary();
      if ((c === "/" || c === "%") && r === 0) throw new CalcMathError("division by zero");
      v = c === "*" ? v * r : c === "/" ? v / r : v % r;
    }
  };
  const expr = (): number => {
    let v = term();
    for (;;) {
      const c = peek();
      if (c !== "+" && c !== "-") return v;
      pos++;
      const r = term();
      v = c === "+" ? v + r : v - r;
    }
  };
  if (peek() === undefined) fail("empty expression");
  const v = expr();
  if (peek() !== undefined) fail(`unexpected '${src[pos]}'`);
  if (!Number.isFinite(v)) throw new CalcMathError("result is not a finite number");
  // Strip binary floating-point noise (0.1+0.2 → 0.3) deterministically.
  return Number(v.toPrecision(12));
}
