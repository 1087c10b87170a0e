import { createServer, type Server } from "node:http"

/**
 * A node HTTP server whose close() also drops the connections it holds. Node's own close() waits for every
 * open connection to end, and a connection that never sent a request (a browser's speculative preconnect
 * to a port a page links to, a port scanner) is not an idle one it closes: a stopping gateway then waited
 * until the request timeout, about a hundred seconds. A server is closed when the gateway stops, after the
 * requests under way were interrupted, so nothing is left to wait for.
 */
export const closingServer = (): Server => {
  const server = createServer()
  const close = server.close.bind(server)
  server.close = ((callback?: (err?: Error) => void) => {
    close(callback)
    server.closeAllConnections()
    return server
  }) as Server["close"]
  return server
}
