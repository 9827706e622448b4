import type { AiPluginConfig } from '../config/site-config.ts';
import { addressOf, DISCOVERY_PATHS } from './addresses.ts';

/** The manifest, keys in the order agent platforms document them. */
export interface AiPluginManifest {
  schema_version: 'v1';
  name_for_human: string;
  name_for_model: string;
  description_for_human: string;
  description_for_model: string;
  auth: { type: 'none' };
  api: { type: 'openapi'; url: string };
  logo_url: string;
  contact_email: string;
  legal_info_url: string;
}

export function aiPluginManifest(plugin: AiPluginConfig, site: string): AiPluginManifest {
  return {
    schema_version: 'v1',
    name_for_human: plugin.nameForHuman,
    name_for_model: plugin.nameForModel,
    description_for_human: plugin.descriptionForHuman,
    description_for_model: plugin.descriptionForModel,
    auth: { type: 'none' },
    api: { type: 'openapi', url: addressOf(site, DISCOVERY_PATHS.openapi) },
    logo_url: plugin.logoUrl,
    contact_email: plugin.contactEmail,
    legal_info_url: plugin.legalInfoUrl,
  };
}
