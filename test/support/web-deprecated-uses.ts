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
