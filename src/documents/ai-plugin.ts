import type { Config } from '../config';
import { SERVICE_SUMMARY, SERVICE_TITLE, marketDataNotice } from './service-info';

/** The legacy AI plugin manifest (schema v1): older clients find the OpenAPI document through it. */
export function aiPluginManifest(config: Config, base: string): Record<string, unknown> {
  return {
    schema_version: 'v1',
    name_for_human: SERVICE_TITLE,
    name_for_model: 'paper_trading',
    description_for_human: 'Paper-trade prediction markets with virtual money.',
    description_for_model:
      `${SERVICE_SUMMARY} ${marketDataNotice(config)} Register with isAgent true to get an API key, then send ` +
      'Authorization: Bearer <API_KEY>. Amounts are virtual dollars; probabilities are 0..1.',
    auth: { type: 'user_http', authorization_type: 'bearer' },
    api: { type: 'openapi', url: `${base}/openapi.json` },
    logo_url: `${base}/logo.svg`,
    contact_email: config.SUPPORT_EMAIL,
    legal_info_url: `${base}/`,
  };
}

/** A plain logo so the manifest's logo_url resolves. */
export const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="#1f4e79"/>' +
  '<path d="M12 46 L26 30 L36 38 L52 18" stroke="#fff" stroke-width="5" fill="none" stroke-linecap="round"/></svg>\n';
