// The layering rule (src/db/README.md, "Layers"): routes → services → repositories → db/.
// `npm run lint` and CI run it; a new violation or import cycle fails them.
//  - A route calls its module's services (and schemas, mappers, http/); never a repository or a route.
//  - A service calls repositories of its own module and other modules' services.
//  - A repository imports db/, shared/, table types and other repositories (a join or a shared
//    SQL fragment, like contracts/contract.repository.ts, is a data-layer concern); no service or rule.
//  - Modules meet at services or the contracts module (modules-meet-at-services-or-contracts says
//    what else one module may import of another: schemas, errors, pure rules and mappers).
//  - The worker and the CLI reach state through services; nothing in modules/ imports worker/.
//  - db/ imports no module: the tables are declared in db/tables/ and modules import them there.
//  - A rules file (`*.rules.ts`) is pure: other rules, table declarations, pure shared helpers, types.
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
        'A repository reports facts from its tables: it imports db/, shared/, other repositories (joins) and the contract reference, never a service or rule.',
      severity: 'error',
      from: { path: '\\.repository\\.ts$' },
      to: {
        path: '^src/(modules|plugins|http|worker|cli)/',
        pathNot: ['\\.repository\\.ts$', '^src/modules/contracts/contract-reference\\.ts$'],
      },
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
      name: 'modules-meet-at-services-or-contracts',
      comment:
        "Another module is reached through its services, or through the contracts module (what subscriptions and annual plans share). Besides: its schemas (the API's shapes), errors (its answers), pure rules and mappers, and the three types every payment names (partner-context, card, payment-gateway).",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: {
        path: '^src/modules/',
        pathNot: [
          '^src/modules/$1/',
          '^src/modules/contracts/',
          '\\.(service|schemas|errors|rules|mapper)\\.ts$',
          '^src/modules/(auth/partner-context|payments/card|payments/payment-gateway)\\.ts$',
        ],
      },
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
    {
      name: 'db-imports-no-module',
      comment:
        'The data layer knows no module: table types are declared in src/db/tables/, and what a module decides stays in the module.',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/', pathNot: '^src/(db/|shared/|config\\.ts$)' },
    },
    {
      name: 'tables-are-declarations',
      comment:
        'A table file declares columns and the vocabularies they hold: it imports other table files and types only.',
      severity: 'error',
      from: { path: '^src/db/tables/' },
      to: { pathNot: '^src/db/tables/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'rules-are-pure',
      comment:
        'A rules file decides from its arguments: it imports other rules files, table declarations, the pure shared helpers named here and types only. Randomness, clocks, I/O and frameworks come from its caller.',
      severity: 'error',
      from: { path: '\\.rules\\.ts$' },
      to: {
        pathNot: [
          '\\.rules\\.ts$',
          '^src/db/tables/',
          '^src/shared/(canonical-json|documents|errors|labels|money|text|time)\\.ts$',
          // A lookup table of look-alike characters (device.rules.ts).
          '(^|/)node_modules/unhomoglyph/',
        ],
      },
    },
    {
      name: 'migrations-import-no-live-code',
      comment:
        'A migration gives every database the same schema and rows forever: what it needs of a rule is copied into it, not imported.',
      severity: 'error',
      from: { path: '^src/db/migrations/' },
      to: { path: '^src/', pathNot: '^src/db/(migrations/|database\\.ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
}
