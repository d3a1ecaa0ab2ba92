// The layering rule (src/db/README.md, "Layers"): routes → services → repositories → db/.
// `npm run lint` and CI run it; a new violation or import cycle fails them.
//  - A route calls its module's services (and schemas, mappers, http/); never a repository or a route.
//  - A service calls repositories of its own module and other modules' services.
//  - A repository imports db/, shared/, table types and other repositories (a join or a shared
//    SQL fragment, like customer-view.repository.ts, is a data-layer concern); no service or rule.
//  - The worker and the CLI reach state through services; nothing in modules/ imports worker/.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Import cycles hide which file owns what.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'routes-call-services',
      comment: 'A route reads input and calls a service; it never queries a repository itself.',
      severity: 'error',
      from: { path: '\\.routes\\.ts$' },
      to: { path: '\\.repository\\.ts$' },
    },
    {
      name: 'routes-are-leaves',
      comment: 'What two route files share lives in a service, schema or plugin, not in a route file.',
      severity: 'error',
      from: { path: '\\.routes\\.ts$' },
      to: { path: '\\.routes\\.ts$' },
    },
    {
      name: 'services-not-routes',
      severity: 'error',
      from: { path: '^src/(modules|worker|cli|db|shared|plugins|http)/', pathNot: '\\.routes\\.ts$' },
      to: { path: '\\.routes\\.ts$' },
    },
    {
      name: 'repositories-know-tables-only',
      comment:
        'A repository reports facts from its tables: it imports db/, shared/, table types and other repositories (joins), never a service or rule.',
      severity: 'error',
      from: { path: '\\.repository\\.ts$' },
      to: { path: '^src/(modules|plugins|http|worker|cli)/', pathNot: '\\.(table|repository)\\.ts$' },
    },
    {
      name: 'modules-talk-through-services',
      comment:
        "Another module's repository is reached through that module's service; only a repository may join another's tables.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/', pathNot: '\\.repository\\.ts$' },
      to: { path: '^src/modules/[^/]+/[^/]+\\.repository\\.ts$', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'jobs-and-commands-through-services',
      comment: 'The worker and the CLI change state through the module that owns it.',
      severity: 'error',
      from: { path: '^src/(worker|cli|demo)/' },
      to: { path: '\\.repository\\.ts$' },
    },
    {
      name: 'modules-not-worker',
      comment: 'The worker runs modules, not the other way round.',
      severity: 'error',
      from: { path: '^src/(modules|plugins|shared|db|http)/' },
      to: { path: '^src/(worker|cli)/' },
    },
    {
      name: 'shared-knows-no-framework',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^src/(modules|plugins|http|worker|cli|db)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
}
