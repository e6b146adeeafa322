import Foundation
import PipelineConformance
import Synchronization

/// A collector for tests: an OTLP/HTTP endpoint on loopback that keeps every
/// `ExportTraceServiceRequest` posted to `/v1/traces` and decodes its protobuf into spans.
final class OTLPReceiver: Sendable {
    struct Span: Sendable {
        var traceID = "", spanID = "", parentSpanID = "", name = ""
        var kind = 0
        var attributes: [String: String] = [:]
        var statusCode = 0
        var service = ""
    }

    private final class Payloads: Sendable {
        let bodies = Mutex<[Data]>([])
    }

    let server: TestHTTPServer
    private let payloads = Payloads()

    init() throws {
        server = try TestHTTPServer()
        server.route("/v1/traces") { [payloads] request, connection in
            payloads.bodies.withLock { $0.append(request.body) }
            connection.respond(status: 200, headers: ["Content-Type": "application/x-protobuf"], body: Data())
        }
    }

    var endpoint: String { server.baseURL }

    /// Every span received so far; a payload that is not valid protobuf fails the decode.
    func spans() throws -> [Span] {
        try payloads.bodies.withLock { $0 }.flatMap(Self.decodeRequest)
    }

    static func decodeRequest(_ data: Data) throws -> [Span] {
        var spans: [Span] = []
        for resourceSpans in try Protobuf.fields(data) where resourceSpans.number == 1 {
            var service = ""
            var scoped: [Data] = []
            for field in try Protobuf.fields(resourceSpans.bytes) {
                if field.number == 1 {
                    for attribute in try Protobuf.fields(field.bytes) where attribute.number == 1 {
                        let (key, value) = try keyValue(attribute.bytes)
                        if key == "service.name" { service = value }
                    }
                } else if field.number == 2 {
                    scoped.append(field.bytes)
                }
            }
            for scope in scoped {
                for field in try Protobuf.fields(scope) where field.number == 2 {
                    var span = try decodeSpan(field.bytes)
                    span.service = service
                    spans.append(span)
                }
            }
        }
        return spans
    }

    static func decodeSpan(_ data: Data) throws -> Span {
        var span = Span()
        for field in try Protobuf.fields(data) {
            switch field.number {
            case 1: span.traceID = field.bytes.hex
            case 2: span.spanID = field.bytes.hex
            case 4: span.parentSpanID = field.bytes.hex
            case 5: span.name = String(decoding: field.bytes, as: UTF8.self)
            case 6: span.kind = Int(field.varint)
            case 9:
                let (key, value) = try keyValue(field.bytes)
                span.attributes[key] = value
            case 15:
                for status in try Protobuf.fields(field.bytes) where status.number == 3 { span.statusCode = Int(status.varint) }
            default: break
            }
        }
        return span
    }

    /// A `KeyValue` with its `AnyValue` as text (string, bool, int or double).
    static func keyValue(_ data: Data) throws -> (String, String) {
        var key = "", value = ""
        for field in try Protobuf.fields(data) {
            if field.number == 1 { key = String(decoding: field.bytes, as: UTF8.self) }
            if field.number == 2 {
                for any in try Protobuf.fields(field.bytes) {
                    switch any.number {
                    case 1: value = String(decoding: any.bytes, as: UTF8.self)
                    case 2: value = any.varint == 0 ? "false" : "true"
                    case 3: value = String(Int64(bitPattern: any.varint))
                    case 4: value = String(Double(bitPattern: any.varint))
                    default: break
                    }
                }
            }
        }
        return (key, value)
    }
}

/// The protobuf wire format, as much as OTLP needs: each field's number with its varint, fixed or
/// length-delimited payload, every length checked against the bytes there are.
enum Protobuf {
    struct Field {
        var number: Int
        var varint: UInt64 = 0
        var bytes = Data()
    }

    struct Malformed: Error {}

    static func fields(_ data: Data) throws -> [Field] {
        let bytes = [UInt8](data)
        var index = 0
        var fields: [Field] = []
        func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard index < bytes.count, shift < 64 else { throw Malformed() }
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }
        func fixed(_ count: Int) throws -> UInt64 {
            guard count <= bytes.count - index else { throw Malformed() }
            var value: UInt64 = 0
            for offset in 0..<count { value |= UInt64(bytes[index + offset]) << (8 * UInt64(offset)) }
            index += count
            return value
        }
        while index < bytes.count {
            let key = try varint()
            var field = Field(number: Int(key >> 3))
            switch key & 7 {
            case 0: field.varint = try varint()
            case 1: field.varint = try fixed(8)
            case 5: field.varint = try fixed(4)
            case 2:
                let length = try varint()
                guard length <= UInt64(bytes.count - index) else { throw Malformed() }
                field.bytes = Data(bytes[index..<index + Int(length)])
                index += Int(length)
            default: throw Malformed()
            }
            fields.append(field)
        }
        return fields
    }
}

extension Data {
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
