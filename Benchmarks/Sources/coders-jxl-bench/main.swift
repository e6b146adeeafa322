// CodersJXL throughput, one thread, in images per CPU second.
//   coders-jxl-bench decode ROUNDS FILE...       full decodes, against Benchmarks/c/decode_jxl.c
//   coders-jxl-bench thumbnail OUTDIR FILE...    256 px thumbnails written as JPEG (quality 75,
//                                                vipsthumbnail's default), against vipsthumbnail
//   coders-jxl-bench encode EFFORT QUALITY OUTDIR FILE.png...
//                                                each PNG decoded, then encoded to OUTDIR/NAME.jxl at
//                                                libjxl's EFFORT and cjxl's QUALITY scale, against
//                                                `cjxl -e EFFORT -q QUALITY`; CPU of the encodes only
// Benchmarks/scripts/coders-jxl.sh runs them on the same files.
import CodersJPEG
import CodersJXL
import CodersPNG
import Foundation
import PipelineCore

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(
        Data("usage: coders-jxl-bench decode ROUNDS FILE... | thumbnail OUTDIR FILE... | encode EFFORT QUALITY OUTDIR FILE...\n".utf8))
    exit(2)
}
let coders = ImageCodersManager()
coders.add(PNGCoder())
coders.add(JPEGCoder())
coders.add(JXLCoder())

/// CPU seconds of this process and of the children it has waited for (the JXL encoder runs a
/// still over 4 megapixels in a child process).
func cpuSeconds() -> Double {
    var total = 0.0
    for who in [RUSAGE_SELF, RUSAGE_CHILDREN] {
        var usage = rusage()
        getrusage(__rusage_who_t(who.rawValue), &usage)
        total += Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    return total
}

var checksum = 0
var done = 0
var seconds = 0.0
switch arguments[1] {
case "decode":
    guard let rounds = Int(arguments[2]) else { exit(2) }
    let files = try arguments.dropFirst(3).map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    let options = ImageDecodeOptions(firstFrameOnly: true)
    let start = cpuSeconds()
    for _ in 0..<rounds {
        for data in files {
            checksum &+= Int(try coders.decode(data, options: options).firstFrame.bytes[0])
            done += 1
        }
    }
    seconds = cpuSeconds() - start
case "thumbnail":
    // As vipsthumbnail -s 256: fit into 256x256, upright, JPEG at quality 75, one file each.
    let folder = URL(fileURLWithPath: arguments[2])
    let box = ImageSize(width: 256, height: 256)
    let start = cpuSeconds()
    for path in arguments.dropFirst(3) {
        let url = URL(fileURLWithPath: path)
        let image = try coders.decode(try Data(contentsOf: url), options: ImageDecodeOptions(thumbnailPixelSize: box))
        let jpeg = try coders.encode(try image.applyingOrientation(), as: .jpeg, options: ImageEncodeOptions(quality: 0.75))
        try jpeg.write(to: folder.appendingPathComponent(url.deletingPathExtension().lastPathComponent + ".jpg"))
        checksum &+= jpeg.count
        done += 1
    }
    seconds = cpuSeconds() - start
case "encode":
    guard arguments.count >= 6, let effort = Int(arguments[2]), let quality = Int(arguments[3]) else { exit(2) }
    let folder = URL(fileURLWithPath: arguments[4])
    var options = ImageEncodeOptions(quality: Double(quality) / 100)
    options.extras[.jxlEffort] = effort
    for path in arguments.dropFirst(5) {
        let url = URL(fileURLWithPath: path)
        let image = try coders.decode(try Data(contentsOf: url), options: ImageDecodeOptions())
        let start = cpuSeconds()
        let jxl = try coders.encode(image, as: .jxl, options: options)
        seconds += cpuSeconds() - start
        try jxl.write(to: folder.appendingPathComponent(url.deletingPathExtension().lastPathComponent + ".jxl"))
        checksum &+= jxl.count
        done += 1
    }
default:
    exit(2)
}
print(String(format: "%.2f images/s (%d in %.3f s, checksum %d)", Double(done) / seconds, done, seconds, checksum & 0xff))
