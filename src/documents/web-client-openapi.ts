import { testConfig } from '../config';
import { buildRegistry } from '../methods';
import { openApiDocument } from './openapi';
import { defaultOrigin } from '../transports/public-origin';

/**
 * The OpenAPI document the web app's typed client is generated from: the registry's own document under the
 * default configuration, so the generated types never depend on the machine's environment (BASE_URL,
 * rate limits appear in descriptions). Pretty-printed so a diff of it reads well.
 */
export function webClientOpenApiJson(): string {
  const config = testConfig();
  return `${JSON.stringify(openApiDocument(buildRegistry(), config, defaultOrigin(config)).doc, null, 2)}\n`;
}
