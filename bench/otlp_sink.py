"""A loopback OTLP/HTTP sink for the benchmarks' telemetry rows: accepts every export
(`POST /v1/traces`, `/v1/metrics`, `/v1/logs`), reads the body and answers 200 with an empty
protobuf response (a valid Export*ServiceResponse). Prints its port on the first line of stdout.
The exporter's whole cost (batching, encoding, the HTTP round trip) stays in the measurement;
what the sink does with the bytes does not."""

import http.server


class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 (the http.server name)
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Sink)
print(server.server_address[1], flush=True)
server.serve_forever()
