import ArgumentParser
import Foundation
import Logging
import OTel
import ServiceLifecycle
import Tracing

/// `imagepipe serve --otel-endpoint URL`: the pipeline's and the server's spans exported with
/// swift-otel over OTLP/HTTP (protobuf) to a collector, W3C `traceparent` read from requests.
/// Traces only: logs stay on standard error and metrics on `/metrics`. swift-otel's own
/// `OTEL_…` variables (headers, sampler, batch delay) apply on top.
enum TraceExport {
    /// Checks the endpoint: an http(s) URL with a host (a collector's OTLP/HTTP port, 4318).
    static func validate(_ endpoint: String) throws {
        guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host?.isEmpty == false else {
            throw ValidationError("--otel-endpoint must be an http(s) URL of an OTLP/HTTP collector, e.g. http://127.0.0.1:4318")
        }
    }

    /// The collector's traces URL: `/v1/traces` under a bare `http://host:port`, as OTLP's
    /// `OTEL_EXPORTER_OTLP_ENDPOINT` is read; a URL with a path of its own is used as it is.
    static func tracesURL(_ endpoint: String) -> String {
        guard let url = URL(string: endpoint), url.path.isEmpty || url.path == "/" else { return endpoint }
        return (endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint) + "/v1/traces"
    }

    /// Bootstraps the tracer for this process and returns the exporter's service, which must run
    /// until the server has drained (`ImageServer.run(services:)`).
    static func bootstrap(endpoint: String, logger: Logger) throws -> any Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "imagepipe"
        configuration.diagnosticLogger = .custom(logger)
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.otlpExporter.endpoint = tracesURL(endpoint)
        configuration.traces.otlpExporter.protocol = .httpProtobuf
        let (tracer, service) = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(tracer)
        return service
    }
}
