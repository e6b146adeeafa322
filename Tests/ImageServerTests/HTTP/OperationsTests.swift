import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ImageServer

@Suite("Health, metrics and the access log")
struct OperationsTests {
    @Test("/health answers 200, and 503 once draining")
    func health() async throws {
        let fixture = try ServerFixture()
        let server = fixture.makeServer()
        try await server.makeApplication().test(.router) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == "ok\n")
            }
            server.handler.startDraining()
            try await client.execute(uri: "/health", method: .get) { #expect($0.status == .serviceUnavailable) }
        }
    }

    /// Samples of a Prometheus text exposition, every line checked against the format.
    static func parse(_ text: String) -> [String: Double] {
        var samples: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            #expect(parts.count == 2, "not a sample line: \(line)")
            let name = String(parts[0])
            #expect(name.range(of: #"^[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="[^"]*",?)*\})?$"#, options: .regularExpression) != nil, "bad name: \(name)")
            let value = parts.count > 1 ? Double(parts[1]) ?? (parts[1] == "+Inf" ? .infinity : nil) : nil
            #expect(value != nil, "bad value: \(line)")
            samples[name] = value
        }
        for line in text.split(separator: "\n") where line.hasPrefix("#") {
            #expect(line.hasPrefix("# TYPE ") || line.hasPrefix("# HELP "), "bad comment: \(line)")
        }
        return samples
    }

    @Test("/metrics is Prometheus text on the metrics port: requests by status, durations, cache hits by tier, in flight, queued")
    func metrics() async throws {
        let fixture = try ServerFixture()
        let server = fixture.with { $0.metricsPort = 0 }.makeServer()
        try await server.makeApplication().test(.router) { client in
            let url = fixture.url("w:8", "/photo.png", ext: "png")
            try await client.execute(uri: url, method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: url, method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/insecure/w:8/aGVsbG8", method: .get) { #expect($0.status.code == 403) }
            try await client.execute(uri: "/metrics", method: .get) { #expect($0.status.code == 404, "never on the main port") }
        }
        try await server.makeMetricsApplication(port: 0).test(.router) { client in
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                let samples = Self.parse(String(buffer: response.body))
                #expect(samples[#"imagepipe_requests_total{status="200"}"#] == 2)
                #expect(samples[#"imagepipe_requests_total{status="403"}"#] == 1)
                #expect(samples[#"imagepipe_cache_hits_total{tier="memory"}"#] == 1)
                #expect(samples[#"imagepipe_requests_total{status="404"}"#] == 1)
                #expect(samples["imagepipe_request_duration_seconds_count"] == 4)
                #expect(samples["imagepipe_source_fetch_duration_seconds_count"] == 1)
                #expect(samples["imagepipe_processing_duration_seconds_count"] == 1)
                // The pipeline's own counters, without a disk cache too.
                #expect(samples["imagepipe_loads_total"] == 1)
                #expect((samples["imagepipe_loaded_bytes_total"] ?? 0) > 0)
                #expect(samples[#"imagepipe_decode_duration_seconds_count{source="loader"}"#] == 1)
                #expect(samples["imagepipe_encode_duration_seconds_count"] == 1)
                #expect(samples["imagepipe_requests_in_flight"] == 0)
                #expect(samples["imagepipe_requests_queued"] == 0)
                // The process metrics Prometheus clients export, with their HELP and TYPE lines.
                #expect((samples["process_resident_memory_bytes"] ?? 0) > 1_000_000)
                #expect((samples["process_cpu_seconds_total"] ?? 0) > 0)
                #expect((samples["process_open_fds"] ?? 0) >= 3)
                #expect((samples["process_max_fds"] ?? 0) >= (samples["process_open_fds"] ?? .infinity))
                let started = samples["process_start_time_seconds"] ?? 0
                #expect(started > Date().timeIntervalSince1970 - 86_400 * 30 && started <= Date().timeIntervalSince1970 + 1)
                #expect(String(buffer: response.body).contains("# HELP process_cpu_seconds_total "))
            }
        }
    }

    @Test("the access log names method, path, status and tier, never the signature")
    func accessLogRedactsSignature() {
        let line = AccessLog.redacted("/oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8/w:10/aGVsbG8.png")
        #expect(line == "/*/w:10/aGVsbG8.png")
        #expect(AccessLog.redacted("/health") == "/health")
        #expect(AccessLog.redacted("/info/sig/w:1/aGVsbG8") == "/info/*/w:1/aGVsbG8", "/info's signature is the second segment")
        #expect(AccessLog.redacted("/info/x") == "/*/x")
        #expect(AccessLog.redacted("/sig/rs:fit:9:9/plain/http://alice:s3cret@origin.example/a.jpg") == "/*/rs:fit:9:9/plain/http://***@origin.example/a.jpg")
    }
}
