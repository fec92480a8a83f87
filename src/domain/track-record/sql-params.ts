/** `@name` placeholders → `$n` (numbered by first appearance); `names` gives the order of the parameter values. */
export function compileNamed(sql: string): { sql: string; names: string[] } {
  const names: string[] = [];
  const text = sql.replace(/@([a-z_]+)/g, (_, name: string) => {
    let i = names.indexOf(name);
    if (i < 0) i = names.push(name) - 1;
    return `$${i + 1}`;
  });
  return { sql: text, names };
}
