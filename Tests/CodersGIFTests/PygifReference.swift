import Foundation
import TestSupport

/// What a pygif `.conf` promises: loop count and, per frame, raw RGBA reference pixels and delay.
struct PygifReference {
    struct Frame {
        var pixels: [UInt8]?
        /// Centiseconds.
        var delay: Int?
    }

    var loopCount: Int?
    var frames: [Frame] = []

    /// Nil for rows outside the pygif suite.
    init?(_ row: Corpus.Row) {
        guard row.file.hasPrefix("pygif-test-suite/") else { return nil }
        let confURL = row.url.deletingPathExtension().appendingPathExtension("conf")
        guard let text = try? String(contentsOf: confURL, encoding: .utf8) else { return nil }
        var sections: [String: [String: String]] = [:]
        var current = ""
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#") || trimmed.isEmpty { continue }
            if trimmed.hasPrefix("[") {
                current = String(trimmed.dropFirst().dropLast())
                continue
            }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { sections[current, default: [:]][parts[0]] = parts[1] }
        }
        let config = sections["config"] ?? [:]
        switch config["loop-count"] {
        case "infinite": loopCount = 0
        case let value?: loopCount = Int(value)
        case nil: loopCount = nil
        }
        let names = (config["frames"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let folder = row.url.deletingLastPathComponent()
        for name in names where !name.isEmpty {
            let section = sections[name] ?? [:]
            let pixels = section["pixels"].flatMap { try? Data(contentsOf: folder.appendingPathComponent($0)) }.map { [UInt8]($0) }
            frames.append(Frame(pixels: pixels, delay: section["delay"].flatMap { Int($0) }))
        }
    }
}

/// RGBA equality where fully transparent pixels match whatever their colour bytes hold.
func sameVisiblePixels(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var i = 0
    while i < a.count {
        if !(a[i + 3] == 0 && b[i + 3] == 0) {
            if a[i] != b[i] || a[i + 1] != b[i + 1] || a[i + 2] != b[i + 2] || a[i + 3] != b[i + 3] { return false }
        }
        i += 4
    }
    return true
}
