// CodersTIFF throughput, one thread, in images per CPU second.
//   coders-tiff-bench decode ROUNDS FILE...           full decodes, against Benchmarks/c/decode_tiff.c
//   coders-tiff-bench thumbnail ROUNDS FILE...        256 px thumbnails (decoded, not encoded)
//   coders-tiff-bench thumbnail-jpeg OUTDIR FILE...   256 px thumbnails written as JPEG (quality 75,
//                                                     vipsthumbnail's default), against vipsthumbnail
// Benchmarks/scripts/coders-tiff.sh runs them on the same files.
import CodersJPEG
import CodersTIFF
import Foundation
import PipelineCore

let arguments = CommandLine.arguments
guard arguments.count >= 4, ["decode", "thumbnail", "thumbnail-jpeg"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: coders-tiff-bench decode|thumbnail ROUNDS FILE... | thumbnail-jpeg OUTDIR FILE...\n".utf8))
    exit(2)
}

/// CPU seconds of this process, as the C baseline measures them.
func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

let box = ImageSize(width: 256, height: 256)
if arguments[1] == "thumbnail-jpeg" {
    // As vipsthumbnail -s 256: fit into 256x256, upright, JPEG at quality 75, one file each.
    let coders = ImageCodersManager()
    coders.add(JPEGCoder())
    coders.add(TIFFCoder())
    let folder = URL(fileURLWithPath: arguments[2])
    var checksum = 0
    let start = cpuSeconds()
    for path in arguments.dropFirst(3) {
        let url = URL(fileURLWithPath: path)
        let image = try coders.decode(try Data(contentsOf: url), options: ImageDecodeOptions(firstFrameOnly: true, thumbnailPixelSize: box))
        let jpeg = try coders.encode(try image.applyingOrientation(), as: .jpeg, options: ImageEncodeOptions(quality: 0.75))
        try jpeg.write(to: folder.appendingPathComponent(url.deletingPathExtension().lastPathComponent + ".jpg"))
        checksum &+= jpeg.count
    }
    let seconds = cpuSeconds() - start
    print(String(format: "%.2f images/s (%d in %.3f s, checksum %d)", Double(arguments.count - 3) / seconds, arguments.count - 3, seconds, checksum & 0xff))
    exit(0)
}

guard let rounds = Int(arguments[2]) else { exit(2) }
var options = ImageDecodeOptions(firstFrameOnly: true, maxDecodeTime: nil)
if arguments[1] == "thumbnail" { options.thumbnailPixelSize = box }
let coder = TIFFCoder()
for path in arguments.dropFirst(3) {
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    var checksum = 0
    let start = cpuSeconds()
    for _ in 0..<rounds {
        let image = try coder.decode(data, options: options)
        checksum &+= Int(image.firstFrame.bytes[image.firstFrame.bytes.count / 2])
    }
    let seconds = cpuSeconds() - start
    print(String(format: "%@ %@ %.2f images/cpu-s (checksum %d)", arguments[1], (path as NSString).lastPathComponent, Double(rounds) / seconds, checksum))
}
