/**
 * @module The Atlas project (group) a provider's credentials are for, and the versioned media
 * types of the Admin API v2 cairn speaks: Atlas picks an operation's resource version from the
 * `Accept` (and, with a body, `Content-Type`) header, `application/vnd.atlas.<date>+json`.
 */

export interface AtlasProject {
  id: string;
  /** `/groups/<id>`, below the API base `/api/atlas/v2`. */
  path: string;
}

function version(date: string): Readonly<Record<string, string>> {
  const type = `application/vnd.atlas.${date}+json`;
  return { accept: type, 'content-type': type };
}

/** Projects, snapshots, restore jobs, database users and the regions list. */
export const ATLAS_VERSION_2023_01_01 = version('2023-01-01');
/** Deleting a cluster. */
export const ATLAS_VERSION_2023_02_01 = version('2023-02-01');
/** Reading and listing clusters (the ClusterDescription20240805 resource). */
export const ATLAS_VERSION_2024_08_05 = version('2024-08-05');
/** Creating and changing clusters (the same resource, the version those operations take). */
export const ATLAS_VERSION_2024_10_23 = version('2024-10-23');
