import { testConfig } from '../config';
import { buildRegistry } from '../methods';
import { buildOpenApi } from './openapi';
import { defaultOrigin } from '../transports/public-origin';

/**
 * The OpenAPI document the web app's typed client is generated from: the registry's own document under the
 * default configuration (every list item whole: it never sends `fields`), so the generated types never depend on the machine's environment (BASE_URL,
 * rate limits appear in descriptions). Pretty-printed so a diff of it reads well.
 */
export function webClientOpenApiJson(): string {
  const config = testConfig();
  // The web app never sends `fields`: its types read every market whole.
  return `${JSON.stringify(buildOpenApi(buildRegistry(), config, defaultOrigin(config), { wholeItems: true }), null, 2)}\n`;
}
