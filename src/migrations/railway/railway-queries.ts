/**
 * @module The GraphQL documents cairn sends to Railway, written against Railway's published
 * schema (the Railway double validates each one against it). Every list is a connection read
 * page by page (`first`/`after`, `pageInfo { hasNextPage endCursor }`); nested connections are
 * asked for in pages as large as Railway allows and read further by their own query when
 * Railway says there is more.
 */

/** How many items cairn asks for in one page of a connection. */
export const RAILWAY_PAGE = 50;

const PAGE_INFO = 'pageInfo { hasNextPage endCursor }';

/** The fields of a service instance the analysis reads. */
const SERVICE_INSTANCE = `
  environmentId
  startCommand
  buildCommand
  healthcheckPath
  rootDirectory
  numReplicas
  source { image repo }
  domains { customDomains { domain targetPort } serviceDomains { domain targetPort } }`;

/** The fields of a service the analysis reads. */
const SERVICE = `
  id
  name
  repoTriggers(first: ${RAILWAY_PAGE}) { edges { node { environmentId branch repository } } }
  serviceInstances(first: ${RAILWAY_PAGE}) { edges { node { ${SERVICE_INSTANCE} } } }`;

/** Projects the token can see, with their services' sources and plugins (for `list`). */
export const PROJECTS_QUERY = `
query CairnProjects($first: Int!, $after: String) {
  projects(first: $first, after: $after) {
    edges {
      node {
        id
        name
        services(first: ${RAILWAY_PAGE}) { edges { node { id name serviceInstances(first: ${RAILWAY_PAGE}) { edges { node { source { image repo } } } } } } ${PAGE_INFO} }
        plugins(first: ${RAILWAY_PAGE}) { edges { node { id name friendlyName } } ${PAGE_INFO} }
      }
    }
    ${PAGE_INFO}
  }
}`;

/** One project with its environments and plugins. */
export const PROJECT_QUERY = `
query CairnProject($id: String!) {
  project(id: $id) {
    id
    name
    environments(first: ${RAILWAY_PAGE}) { edges { node { id name } } ${PAGE_INFO} }
    plugins(first: ${RAILWAY_PAGE}) { edges { node { id name friendlyName } } ${PAGE_INFO} }
  }
}`;

/** One page of a project's environments (after the first). */
export const PROJECT_ENVIRONMENTS_QUERY = `
query CairnProjectEnvironments($id: String!, $first: Int!, $after: String) {
  project(id: $id) { environments(first: $first, after: $after) { edges { node { id name } } ${PAGE_INFO} } }
}`;

/** One page of a project's plugins (after the first). */
export const PROJECT_PLUGINS_QUERY = `
query CairnProjectPlugins($id: String!, $first: Int!, $after: String) {
  project(id: $id) { plugins(first: $first, after: $after) { edges { node { id name friendlyName } } ${PAGE_INFO} } }
}`;

/** One page of a project's services, with what the analysis reads of each. */
export const PROJECT_SERVICES_QUERY = `
query CairnProjectServices($id: String!, $first: Int!, $after: String) {
  project(id: $id) { services(first: $first, after: $after) { edges { node { ${SERVICE} } } ${PAGE_INFO} } }
}`;

/** The variables of one service in one environment: `unrendered` keeps references (`${{Postgres.DATABASE_URL}}`) as written. */
export const VARIABLES_QUERY = `
query CairnVariables($projectId: String!, $environmentId: String!, $serviceId: String, $unrendered: Boolean) {
  variables(projectId: $projectId, environmentId: $environmentId, serviceId: $serviceId, unrendered: $unrendered)
}`;
