// A helper process for the disk cache's crash and multi-process tests: it writes self-checking
// entries through `DiskCache` as fast as it can, so a test can kill it with SIGKILL at any moment,
// or run two at once on one directory, and then check that every entry is absent or whole.
//
// Entry format: 8-byte little-endian total length, 1 seed byte, then byte j = seed + j (mod 256).
//
//   cache-stress write DIR KEYS          write random entries to keys 0..<KEYS until killed
//   cache-stress hammer DIR ID COUNT     write COUNT own keys and shared keys, verifying every read
import Foundation
import ImagePipe
import PipelineCore

func entry(size: Int, seed: UInt8) -> Data {
    var bytes = [UInt8](repeating: 0, count: max(size, 9))
    let count = UInt64(bytes.count)
    for i in 0..<8 { bytes[i] = UInt8(truncatingIfNeeded: count >> (8 * UInt64(i))) }
    bytes[8] = seed
    for j in 9..<bytes.count { bytes[j] = seed &+ UInt8(truncatingIfNeeded: j) }
    return Data(bytes)
}

func isWhole(_ data: Data) -> Bool {
    let bytes = [UInt8](data)
    guard bytes.count >= 9 else { return false }
    var count: UInt64 = 0
    for i in 0..<8 { count |= UInt64(bytes[i]) << (8 * UInt64(i)) }
    guard count == UInt64(bytes.count) else { return false }
    let seed = bytes[8]
    for j in 9..<bytes.count where bytes[j] != seed &+ UInt8(truncatingIfNeeded: j) { return false }
    return true
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: cache-stress write DIR KEYS | hammer DIR ID COUNT\n".utf8))
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[2], isDirectory: true)

switch arguments[1] {
case "write":
    let keys = max(Int(arguments[3]) ?? 40, 1)
    // A small size limit, so trims also run (and get killed) mid-way.
    let cache = DiskCache(directory: directory, configuration: DiskCache.Configuration(maxAge: nil, sizeLimit: 1 << 20, trimInterval: nil))
    while true {
        let key = "https://example.com/\(Int.random(in: 0..<keys)).png"
        if Int.random(in: 0..<20) == 0 {
            cache.removeData(forKey: key)
        } else {
            try? cache.setData(entry(size: Int.random(in: 9...(64 << 10)), seed: .random(in: 0...255)), forKey: key)
        }
    }
case "hammer":
    guard arguments.count >= 5, let count = Int(arguments[4]) else { exit(2) }
    let id = arguments[3]
    let cache = DiskCache(directory: directory, configuration: DiskCache.Configuration(maxAge: nil, sizeLimit: 0, trimInterval: nil))
    var torn = 0
    for i in 0..<count {
        try? cache.setData(entry(size: 9 + (i * 997) % 20_000, seed: UInt8(truncatingIfNeeded: i)), forKey: "own-\(id)-\(i)")
        try? cache.setData(entry(size: 9 + (i * 7919) % 40_000, seed: UInt8(truncatingIfNeeded: i)), forKey: "shared-\(i % 16)")
        if let data = cache.data(forKey: "shared-\(Int.random(in: 0..<16))"), !isWhole(data) { torn += 1 }
    }
    print("torn \(torn)")
    exit(torn == 0 ? 0 : 1)
default:
    exit(2)
}
