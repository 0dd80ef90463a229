import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

/** The SDK's own client over Streamable HTTP, with a bearer token when given. */
export async function httpClient(url: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {},
  )
  const client = new Client({ name: 'foundry-server-test', version: '1.0.0' })
  await client.connect(transport)
  return client
}
