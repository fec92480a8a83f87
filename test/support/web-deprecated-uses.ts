import * as path from 'node:path';
import ts from 'typescript';

/** One use in the web app of a field the generated client types mark deprecated. */
export interface DeprecatedUse {
  file: string;
  line: number;
  field: string;
  how: 'sends' | 'reads';
}

const WEB = path.resolve(__dirname, '../../web');
const SCHEMA = path.join(WEB, 'src/lib/api/schema.d.ts');

/** Whether a symbol is declared in the generated client types with an @deprecated tag (openapi-typescript's mark). */
function deprecatedInSchema(symbol: ts.Symbol | undefined): boolean {
  return (symbol?.declarations ?? []).some(
    (d) => path.resolve(d.getSourceFile().fileName) === SCHEMA && ts.getJSDocTags(d).some((t) => t.tagName.text === 'deprecated'),
  );
}

/**
 * Every place the web app sends (an object literal typed by the API) or reads (a property access) a deprecated field
 * of the public API, found by the type checker over web/ as `tsc -p web` sees it: the names alone cannot tell
 * Position.quantity (a SPEC field) from a quote's deprecated quantity.
 */
export function webDeprecatedUses(): DeprecatedUse[] {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(WEB, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
  if (!config) throw new Error('web/tsconfig.json did not parse');
  const program = ts.createProgram({ rootNames: config.fileNames, options: { ...config.options, noEmit: true } });
  const checker = program.getTypeChecker();
  const uses: DeprecatedUse[] = [];
  const add = (node: ts.Node, field: string, how: DeprecatedUse['how']) => {
    const sf = node.getSourceFile();
    uses.push({ file: path.relative(WEB, sf.fileName), line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, field, how });
  };
  for (const sf of program.getSourceFiles()) {
    const file = path.resolve(sf.fileName);
    if (!file.startsWith(path.join(WEB, 'src')) || file === SCHEMA) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyAccessExpression(node) && deprecatedInSchema(checker.getSymbolAtLocation(node.name))) add(node, node.name.text, 'reads');
      if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) && ts.isObjectLiteralExpression(node.parent)) {
        const name = node.name.getText(sf).replace(/^['"]|['"]$/g, '');
        const contextual = checker.getContextualType(node.parent);
        if (contextual && deprecatedInSchema(checker.getPropertyOfType(contextual, name) ?? contextual.getNonNullableType().getProperty(name)))
          add(node, name, 'sends');
      }
      if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
        const name = (node.propertyName ?? node.name).getText(sf);
        const type = checker.getTypeAtLocation(node.parent);
        if (deprecatedInSchema(checker.getPropertyOfType(type, name))) add(node, name, 'reads');
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return uses;
}

/** A place in the web app that names the REST path of a deprecated method (a venue alias), and the method to call instead. */
export interface DeprecatedCall {
  file: string;
  line: number;
  path: string;
  method: string;
  use: string;
}

/** A method as the scan needs it: its name, its REST path (`/api/x/:id`), and the method it is an alias of. */
export interface AliasPath {
  name: string;
  path: string;
  use: string;
}

/** A path's segments, each parameter (`:id`, OpenAPI's `{id}`, a template's `${…}`) as null. */
function segmentsOf(path: string): Array<string | null> {
  return path
    .split('/')
    .filter((s) => s !== '')
    .map((s) => (/^:|^\{.*\}$|\$\{\}/.test(s) ? null : s));
}

/**
 * Whether a string of the source names `alias`'s path: its last segments are the path's, a parameter of the path taking
 * any segment (an origin or a base before it, a query after it, change nothing). A parameter of the string never stands
 * for a fixed segment of the path: `/api/user-markets/{slug}` is get_community_market, not the alias at `…/quote`.
 */
function namesPath(text: string, alias: string): boolean {
  const want = segmentsOf(alias);
  const have = segmentsOf(text.split(/[?#]/)[0]!);
  if (have.length < want.length) return false;
  const tail = have.slice(have.length - want.length);
  return want.every((w, i) => w === null || w === tail[i]);
}

/** The text of a string or template literal, each `${…}` as `${}` (a parameter segment), or undefined for other nodes. */
function literalText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return node.head.text + node.templateSpans.map((s) => '${}' + s.literal.text).join('');
  return undefined;
}

/** Every literal in one source file that names the REST path of one of `aliases`. */
export function deprecatedCallsIn(file: string, text: string, aliases: readonly AliasPath[]): DeprecatedCall[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const calls: DeprecatedCall[] = [];
  const visit = (node: ts.Node): void => {
    const literal = literalText(node);
    if (literal !== undefined && literal.includes('/'))
      for (const a of aliases.filter((x) => namesPath(literal, x.path)))
        calls.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, path: literal, method: a.name, use: a.use });
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return calls;
}

/**
 * Every place web/src names the REST path of a method the registry marks `deprecated` (a venue alias, issue 50 item
 * 2): the web app calls only the methods that stay. The path is what the app's typed client and any fetch name.
 */
export function webDeprecatedCalls(aliases: readonly AliasPath[]): DeprecatedCall[] {
  const src = path.join(WEB, 'src');
  const files = ts.sys.readDirectory(src, ['.ts', '.tsx']).filter((f) => path.resolve(f) !== SCHEMA);
  return files.flatMap((f) => deprecatedCallsIn(path.relative(WEB, f), ts.sys.readFile(f) ?? '', aliases));
}
