import { compareVersions } from '../../domain/package/version-range.js';
import type { RegistryClients } from '../ports/registry-client.js';

export interface SearchHit {
  guid: string;
  name: string;
  /** Newest first. */
  versions: string[];
}

/** `pkg search <term>`: the packages of a registry whose GUID or name holds the term (any case), by name. */
export class SearchRegistry {
  constructor(private readonly registries: RegistryClients) {}

  async execute(request: { term: string; registry: string }): Promise<SearchHit[]> {
    const term = request.term.toLowerCase();
    const { packages } = await this.registries.open(request.registry).index();
    return Object.entries(packages)
      .filter(([guid, entry]) => guid.toLowerCase().includes(term) || entry.name.toLowerCase().includes(term))
      .map(([guid, entry]) => ({ guid, name: entry.name, versions: Object.keys(entry.versions).sort((a, b) => compareVersions(b, a)) }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.guid < b.guid ? -1 : 1));
  }
}
