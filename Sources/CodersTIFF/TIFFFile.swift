import CTIFF
import CTIFFShim
import Foundation
import PipelineCore

/// One open TIFF over bytes that stay alive while it is open (`withTIFF`), with libtiff's messages
/// collected on the reader instead of printed. Not thread-safe: each decode opens its own.
final class TIFFFile {
    let handle: OpaquePointer
    private let reader: UnsafeMutablePointer<ip_tiff_reader>
    private let maxDecoderMemory: Int

    /// Opens `bytes`, which must stay valid until the file is released. Throws `badImageData` with
    /// libtiff's reason.
    private init(_ bytes: UnsafeRawBufferPointer, options: ImageDecodeOptions) throws {
        reader = .allocate(capacity: 1)
        reader.initialize(to: ip_tiff_reader())
        reader.pointee.bytes = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        reader.pointee.size = UInt64(bytes.count)
        // No single buffer libtiff allocates (a strip, a tile, a directory's arrays) may exceed
        // the decoder memory a request allows.
        maxDecoderMemory = options.maxDecoderMemory
        guard let tiff = ip_tiff_open(reader, Int64(options.maxDecoderMemory)) else {
            let reason = String(cString: ip_tiff_error(reader))
            reader.deallocate()
            throw Self.error(reason, maxDecoderMemory: options.maxDecoderMemory)
        }
        handle = tiff
    }

    /// Bytes of the whole file.
    var fileSize: Int { Int(reader.pointee.size) }

    deinit {
        TIFFClose(handle)
        reader.deallocate()
    }

    /// Runs `body` with `data` open as a TIFF.
    static func withTIFF<T>(_ data: Data, options: ImageDecodeOptions, _ body: (TIFFFile) throws -> T) throws -> T {
        try data.withUnsafeBytes { bytes in
            let file = try TIFFFile(bytes, options: options)
            return try withExtendedLifetime(file) { try body(file) }
        }
    }

    /// The error libtiff reported, as the `badImageData` to throw when a call failed.
    func failure(_ what: String) -> ImagePipeError {
        let message = reader.pointee.error_count > 0 ? String(cString: ip_tiff_error(reader)) : "\(what) failed"
        return Self.error(message, maxDecoderMemory: maxDecoderMemory)
    }

    /// `badImageData` with libtiff's message, or `limitExceeded(.decoderMemory)` when libtiff
    /// refused an allocation over the limit `ip_tiff_open` gave it ("Memory allocation of N bytes
    /// is beyond the M byte limit defined in open options").
    static func error(_ message: String, maxDecoderMemory: Int) -> ImagePipeError {
        if message.contains("limit defined in open options"), let range = message.range(of: "Memory allocation of ") {
            let digits = message[range.upperBound...].prefix { $0.isNumber }
            return .limitExceeded(.decoderMemory, value: Int(digits) ?? .max, maximum: maxDecoderMemory)
        }
        return .badImageData(reason: "TIFF: \(message)")
    }

    /// libtiff's first warning, with how many came, as a decode warning; nil when none came.
    var warning: ImageDecodeWarning? {
        let count = Int(reader.pointee.warning_count)
        guard count > 0 else { return nil }
        let more = count > 1 ? " (and \(count - 1) more warnings)" : ""
        return ImageDecodeWarning(.corruptData, message: "TIFF: \(String(cString: ip_tiff_warning(reader)))\(more)")
    }

    /// Directories in the file (pages, and reduced-resolution images), at most `limit`: libtiff
    /// walks the chain and refuses loops.
    func directoryCount(limit: Int) throws -> Int {
        let count = Int(TIFFNumberOfDirectories(handle))
        guard count > 0 else { throw failure("counting directories") }
        return min(count, limit + 1)
    }

    func select(directory: Int) throws {
        guard TIFFSetDirectory(handle, tdir_t(directory)) == 1 else { throw failure("reading directory \(directory)") }
    }

    func u16(_ tag: UInt32, default value: UInt16? = nil) -> UInt16? {
        var result: UInt16 = 0
        if ip_tiff_get_u16(handle, tag, &result) == 1 { return result }
        if value == nil, ip_tiff_get_u16_defaulted(handle, tag, &result) == 1 { return result }
        return value
    }

    func u32(_ tag: UInt32) -> UInt32? {
        var result: UInt32 = 0
        return ip_tiff_get_u32(handle, tag, &result) == 1 ? result : nil
    }

    func bytes(_ tag: UInt32) -> (count: Int, pointer: UnsafeRawPointer)? {
        var length: UInt32 = 0
        var pointer: UnsafeRawPointer?
        guard ip_tiff_get_bytes(handle, tag, &length, &pointer) == 1, let pointer, length > 0 else { return nil }
        return (Int(length), pointer)
    }
}
