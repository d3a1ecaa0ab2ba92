import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { errorResponses } from '../../http/error-responses.js'
import { NotFoundError } from '../../shared/errors.js'
import { defaultSdkDirectory, loadSdkPackage, type SdkPackage } from './sdk.package.js'

const Tarball = Type.Unsafe<Buffer>({
  description: 'The `npm pack` of `@amparo/client`, for `npm install <this address>`.',
  content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } },
  headers: {
    'Content-Disposition': {
      type: 'string',
      description: '`attachment; filename="amparo-client-<version>.tgz"`.',
    },
  },
})

const INSTALL = `\`npm install https://<host>/sdk/amparo-client.tgz\` installs the TypeScript client built
with the running version of the service (its runtime dependencies, \`openapi-fetch\` and
\`standardwebhooks\`, come from the npm registry). Needs no token. 404 when the service was started
without building it (\`npm run build\` packs it into \`dist/sdk/\`).`

/** The TypeScript client, served (README, TypeScript client). */
export const sdkRoutes: FastifyPluginAsyncTypebox<{ directory?: string }> = async (app, { directory }) => {
  let sdk: SdkPackage | null | undefined
  const packed = () => {
    sdk ??= loadSdkPackage(directory ?? defaultSdkDirectory())
    if (!sdk) throw new NotFoundError('Client package')
    return sdk
  }
  const send = (sdk: SdkPackage, reply: import('fastify').FastifyReply) =>
    reply
      .type('application/gzip')
      .header('content-disposition', `attachment; filename="${sdk.filename}"`)
      .send(sdk.bytes)

  app.get(
    '/sdk/amparo-client.tgz',
    {
      schema: {
        tags: ['Service'],
        operationId: 'getClientPackage',
        summary: 'The TypeScript client package',
        description: INSTALL,
        security: [],
        response: { 200: Tarball, ...errorResponses(404) },
      },
    },
    async (_request, reply) => send(packed(), reply),
  )

  app.get(
    '/sdk/:file',
    {
      schema: {
        tags: ['Service'],
        operationId: 'getClientPackageVersion',
        summary: 'The TypeScript client package of this version',
        description: `The same package under its versioned name, \`amparo-client-<version>.tgz\`: only the running version is served (another → 404). ${INSTALL}`,
        security: [],
        params: Type.Object({
          file: Type.String({
            maxLength: 100,
            description: '`amparo-client-<version>.tgz`, the version `GET /` gives the client.',
            examples: ['amparo-client-0.1.0.tgz'],
          }),
        }),
        response: { 200: Tarball, ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const sdk = packed()
      if (request.params.file !== sdk.filename) throw new NotFoundError('Client package')
      return send(sdk, reply)
    },
  )
}
