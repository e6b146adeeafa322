// CodersAVIF / CodersHEIF throughput, one thread, in images per CPU second.
//   coders-avif-heif-bench decode ROUNDS FILE...    full decodes, against Benchmarks/c/decode_avif_heif.c
//   coders-avif-heif-bench thumbnail OUTDIR FILE... 256 px thumbnails written as JPEG (quality 75,
//                                                   vipsthumbnail's default), against vipsthumbnail
// Benchmarks/scripts/coders-avif-heif.sh runs both on the same files.
import CodersAVIF
import CodersHEIF
import CodersJPEG
import Foundation
import PipelineCore

let arguments = CommandLine.arguments
guard arguments.count >= 4 else {
    FileHandle.standardError.write(Data("usage: coders-avif-heif-bench decode ROUNDS FILE... | thumbnail OUTDIR FILE...\n".utf8))
    exit(2)
}
let paths = Array(arguments.dropFirst(3))
let coders = ImageCodersManager()
coders.add(JPEGCoder())
coders.add(HEIFCoder())
coders.add(AVIFCoder())

/// CPU seconds of this process, as the C baseline measures them.
func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

var checksum = 0
var done = 0
let start = cpuSeconds()
if arguments[1] == "decode", let rounds = Int(arguments[2]) {
    let files = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
    for _ in 0..<rounds {
        for data in files {
            checksum &+= Int(try coders.decode(data, options: ImageDecodeOptions()).firstFrame.bytes[0])
            done += 1
        }
    }
} else {
    // As vipsthumbnail -s 256: fit into 256x256, upright, JPEG at quality 75, one file each.
    let folder = URL(fileURLWithPath: arguments[2])
    let box = ImageSize(width: 256, height: 256)
    for path in paths {
        let url = URL(fileURLWithPath: path)
        let image = try coders.decode(try Data(contentsOf: url), options: ImageDecodeOptions(thumbnailPixelSize: box))
        let jpeg = try coders.encode(try image.applyingOrientation(), as: .jpeg, options: ImageEncodeOptions(quality: 0.75))
        try jpeg.write(to: folder.appendingPathComponent(url.deletingPathExtension().lastPathComponent + ".jpg"))
        checksum &+= jpeg.count
        done += 1
    }
}
let seconds = cpuSeconds() - start
print(String(format: "%.2f images/s (%d in %.3f s, checksum %d)", Double(done) / seconds, done, seconds, checksum & 0xff))
