// Issue 7's two benchmarks; Benchmarks/scripts/manager.sh runs both and prints the ratios.
//
//   manager-bench hits COUNT [TASKS]        COUNT memory-cache hits through `ImageManager.loadImage(with:)`
//                                           (async API, DefaultImageCache), from TASKS concurrent tasks
//   manager-bench hits-flow COUNT [TASKS]   the same through the full flow (task, stream, cache query):
//                                           a no-op options processor turns the memory-hit shortcut off
//   manager-bench resize IN.png W H ROUNDS OUT.png
//                                           `PixelBuffer.resampled(to:)` (Lanczos-3) ROUNDS times, then
//                                           writes the result for the quality comparison with libvips
//   manager-bench psnr A.png B.png          PSNR in dB of B against A (same size, same channels)
//
// Every figure is printed per wall second and per CPU second of this process: the machine is shared
// with other builds, and CPU time does not count the time a neighbour held the core.
import CodersPNG
import Foundation
import PipelineCore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func wallSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func readPNG(_ path: String) -> PixelBuffer {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    do {
        return try PNGCoder().decode(data, options: ImageDecodeOptions()).firstFrame
    } catch {
        fail("cannot decode \(path): \(error)")
    }
}

/// Memory-cache hits: the image is stored under the request's key first, so every load is a hit
/// and the figure is the manager's own overhead (task, flow, cache query, completion).
func benchmarkHits(count: Int, tasks: Int, fullFlow: Bool) async {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("manager-bench-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let cache = DefaultImageCache(namespace: "hits", directory: directory)
    let manager = ImageManager(cache: cache)
    if fullFlow {
        // The shortcut steps aside for an options processor (it must run inside the flow); this one
        // changes nothing.
        var settings = manager.settings
        settings.optionsProcessor = ImageOptionsProcessor { _, _, _ in nil }
        manager.settings = settings
    }
    let url = URL(string: "https://example.com/images/photo.jpg")!
    let image = Image(try! PixelBuffer(width: 64, height: 64, format: .rgba8))
    cache.memoryCache.set(image, forKey: manager.cacheKey(for: url), cost: 64 * 64 * 4)

    // Warm-up: first-use costs (metadata, allocator pools) are not what a running app pays.
    for _ in 0..<1_000 { _ = try? await manager.loadImage(with: url) }

    let perTask = count / tasks
    let cpuStart = cpuSeconds(), wallStart = wallSeconds()
    let hits = await withTaskGroup(of: Int.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                var hits = 0
                for _ in 0..<perTask {
                    if let result = try? await manager.loadImage(with: url), result.cacheType == .memory { hits += 1 }
                }
                return hits
            }
        }
        return await group.reduce(0, +)
    }
    let cpu = cpuSeconds() - cpuStart, wall = wallSeconds() - wallStart
    guard hits == perTask * tasks else { fail("expected \(perTask * tasks) memory hits, got \(hits)") }
    let label = fullFlow ? "hits-flow" : "hits"
    print(label + String(format: " tasks=%d loads=%d wall_s=%.3f cpu_s=%.3f loads_per_s=%.0f loads_per_cpu_s=%.0f",
                 tasks, hits, wall, cpu, Double(hits) / wall, Double(hits) / cpu))
}

func benchmarkResize(input: String, width: Int, height: Int, rounds: Int, output: String) {
    let source = readPNG(input)
    let size = ImageSize(width: width, height: height)
    var result = source.resampled(to: size)  // warm-up, and the image written below
    let cpuStart = cpuSeconds(), wallStart = wallSeconds()
    for _ in 0..<rounds { result = source.resampled(to: size) }
    let cpu = cpuSeconds() - cpuStart, wall = wallSeconds() - wallStart
    do {
        let data = try PNGCoder().encode(Image(result), as: .png, options: ImageEncodeOptions())
        try data.write(to: URL(fileURLWithPath: output))
    } catch {
        fail("cannot write \(output): \(error)")
    }
    print(String(format: "resize %dx%d->%dx%d rounds=%d wall_s=%.3f cpu_s=%.3f resizes_per_cpu_s=%.2f",
                 source.width, source.height, width, height, rounds, wall, cpu, Double(rounds) / cpu))
}

func psnr(_ referencePath: String, _ candidatePath: String) {
    let reference = readPNG(referencePath), candidate = readPNG(candidatePath)
    guard reference.width == candidate.width, reference.height == candidate.height,
          reference.format == candidate.format else {
        fail("psnr: \(referencePath) and \(candidatePath) differ in size or pixel format")
    }
    var squared = 0.0
    for (a, b) in zip(reference.bytes, candidate.bytes) {
        let d = Double(a) - Double(b)
        squared += d * d
    }
    let mse = squared / Double(reference.bytes.count)
    print(mse == 0 ? "psnr_db=inf" : String(format: "psnr_db=%.2f", 10 * log10(255 * 255 / mse)))
}

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "hits", "hits-flow":
    guard arguments.count >= 3, let count = Int(arguments[2]) else { fail("usage: manager-bench hits|hits-flow COUNT [TASKS]") }
    let tasks = arguments.count >= 4 ? Int(arguments[3]) ?? 1 : 1
    await benchmarkHits(count: count, tasks: max(tasks, 1), fullFlow: arguments[1] == "hits-flow")
case "resize":
    guard arguments.count == 7, let w = Int(arguments[3]), let h = Int(arguments[4]), let rounds = Int(arguments[5]) else {
        fail("usage: manager-bench resize IN.png W H ROUNDS OUT.png")
    }
    benchmarkResize(input: arguments[2], width: w, height: h, rounds: rounds, output: arguments[6])
case "psnr":
    guard arguments.count == 4 else { fail("usage: manager-bench psnr A.png B.png") }
    psnr(arguments[2], arguments[3])
default:
    fail("usage: manager-bench hits|resize|psnr ... (see the top of main.swift)")
}
