// The manager benchmarks; Benchmarks/scripts/manager.sh runs them and prints the ratios.
//
//   manager-bench hits COUNT [TASKS]        COUNT memory-cache hits through `ImageManager.loadImage(with:)`
//                                           (async API, DefaultImageCache), from TASKS concurrent tasks
//   manager-bench hits-flow COUNT [TASKS]   the same through `imageTask(with:)` and its `result()`: the
//                                           flow inside an ImageTask (task, stream, unstructured Task)
//   manager-bench scaling COUNT ROUNDS [KEYS]
//                                           memory hits over KEYS distinct keys (default 1,000): ROUNDS
//                                           alternating runs of COUNT loads from 1 task, then from 2,
//                                           with the manager on DefaultImageCache and on an
//                                           ImageCachesManager holding it; prints each round's rates
//                                           and the median of the 2-task / 1-task ratios
//   manager-bench resize IN.png W H ROUNDS OUT.png
//                                           `PixelBuffer.resampled(to:)` (Lanczos-3) ROUNDS times, then
//                                           writes the result for the quality comparison with libvips
//   manager-bench psnr A.png B.png          PSNR in dB of B against A (same size, same channels)
//
// Every figure is printed per wall second and per CPU second of this process: the machine is shared
// with other builds, and CPU time does not count the time a neighbour held the core.
import CodersPNG
import Foundation
import ImagePipe
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
    let url = URL(string: "https://example.com/images/photo.jpg")!
    // hits-flow: the same load through the task API, which always starts an ImageTask.
    let load: @Sendable () async -> ImageResult?
    if fullFlow {
        load = { try? await manager.imageTask(with: url).result() }
    } else {
        load = { try? await manager.loadImage(with: url) }
    }
    let image = Image(try! PixelBuffer(width: 64, height: 64, format: .rgba8))
    cache.memoryCache.set(image, forKey: manager.cacheKey(for: url), cost: 64 * 64 * 4)

    // Warm-up: first-use costs (metadata, allocator pools) are not what a running app pays.
    for _ in 0..<1_000 { _ = await load() }

    let perTask = count / tasks
    let cpuStart = cpuSeconds(), wallStart = wallSeconds()
    let hits = await withTaskGroup(of: Int.self) { group in
        for _ in 0..<tasks {
            group.addTask {
                var hits = 0
                for _ in 0..<perTask {
                    if let result = await load(), result.cacheType == .memory { hits += 1 }
                }
                return hits
            }
        }
        return await group.reduce(0, +)
    }
    let cpu = cpuSeconds() - cpuStart, wall = wallSeconds() - wallStart
    guard hits == perTask * tasks else { fail("expected \(perTask * tasks) memory hits, got \(hits)") }
    let label = fullFlow ? "hits-flow" : "hits"
    print(
        label
            + String(
                format: " tasks=%d loads=%d wall_s=%.3f cpu_s=%.3f loads_per_s=%.0f loads_per_cpu_s=%.0f",
                tasks, hits, wall, cpu, Double(hits) / wall, Double(hits) / cpu))
}

/// Loads/s and loads per CPU-second of `count` memory hits through `manager`, spread over `tasks`
/// tasks; each task walks all of `urls` from its own starting point, so the tasks ask for the same
/// images, as requests on a server do.
/// `parallelism` is CPU seconds over wall seconds: near 2 when both tasks had a core to themselves,
/// near 1 when other processes left this one about one core, and then no ratio can show scaling.
func hitRates(_ manager: ImageManager, urls: [URL], count: Int, tasks: Int) async -> (wall: Double, cpu: Double, parallelism: Double) {
    let perTask = count / tasks
    let cpuStart = cpuSeconds(), wallStart = wallSeconds()
    let hits = await withTaskGroup(of: Int.self) { group in
        for task in 0..<tasks {
            group.addTask {
                var hits = 0, index = task * urls.count / tasks
                for _ in 0..<perTask {
                    if let result = try? await manager.loadImage(with: urls[index]), result.cacheType == .memory { hits += 1 }
                    index = index + 1 == urls.count ? 0 : index + 1
                }
                return hits
            }
        }
        return await group.reduce(0, +)
    }
    let cpu = cpuSeconds() - cpuStart, wall = wallSeconds() - wallStart
    guard hits == perTask * tasks else { fail("expected \(perTask * tasks) memory hits, got \(hits)") }
    return (Double(hits) / wall, Double(hits) / cpu, cpu / wall)
}

/// 2 tasks against 1 on a warm memory cache of `keyCount` images, alternating, `rounds` times, for
/// the manager on a DefaultImageCache and on an ImageCachesManager holding one.
func benchmarkScaling(count: Int, rounds: Int, keyCount: Int) async {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("manager-bench-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let cache = DefaultImageCache(namespace: "scaling", directory: directory)
    let managers = [
        ("DefaultImageCache", ImageManager(cache: cache)),
        ("ImageCachesManager", ImageManager(cache: ImageCachesManager(caches: [cache]))),
    ]
    let urls = (0..<keyCount).map { URL(string: "https://cdn.example.com/images/\($0 % 97)/photo-\($0).jpg?w=400")! }
    for url in urls {
        let image = Image(try! PixelBuffer(width: 64, height: 64, format: .rgba8))
        cache.memoryCache.set(image, forKey: managers[0].1.cacheKey(for: url), cost: 64 * 64 * 4)
    }
    func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    for (name, manager) in managers {
        _ = await hitRates(manager, urls: urls, count: 20_000, tasks: 2)  // warm-up
        var ratios: [Double] = [], cpuRatios: [Double] = [], singles: [Double] = [], parallelism: [Double] = []
        for round in 1...rounds {
            let one = await hitRates(manager, urls: urls, count: count, tasks: 1)
            let two = await hitRates(manager, urls: urls, count: count, tasks: 2)
            ratios.append(two.wall / one.wall)
            cpuRatios.append(two.cpu / one.cpu)
            singles.append(one.wall)
            parallelism.append(two.parallelism)
            print(
                String(
                    format: "scaling %@ keys=%d round=%d tasks1_loads_per_s=%.0f tasks2_loads_per_s=%.0f ratio=%.2f"
                        + " tasks1_loads_per_cpu_s=%.0f tasks2_loads_per_cpu_s=%.0f tasks2_parallelism=%.2f",
                    name, keyCount, round, one.wall, two.wall, two.wall / one.wall, one.cpu, two.cpu, two.parallelism))
        }
        print(
            String(
                format: "scaling %@ keys=%d rounds=%d median_ratio=%.2f median_tasks1_loads_per_s=%.0f"
                    + " median_cpu_ratio=%.2f median_tasks2_parallelism=%.2f"
                    + " (2 tasks / 1 task; per CPU-s, 1.0 means no cost from sharing; parallelism: cores the 2 tasks got)",
                name, keyCount, rounds, median(ratios), median(singles), median(cpuRatios), median(parallelism)))
    }
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
    print(
        String(
            format: "resize %dx%d->%dx%d rounds=%d wall_s=%.3f cpu_s=%.3f resizes_per_cpu_s=%.2f",
            source.width, source.height, width, height, rounds, wall, cpu, Double(rounds) / cpu))
}

func psnr(_ referencePath: String, _ candidatePath: String) {
    let reference = readPNG(referencePath), candidate = readPNG(candidatePath)
    guard reference.width == candidate.width, reference.height == candidate.height,
        reference.format == candidate.format
    else {
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
case "scaling":
    guard arguments.count >= 4, let count = Int(arguments[2]), let rounds = Int(arguments[3]) else {
        fail("usage: manager-bench scaling COUNT ROUNDS [KEYS]")
    }
    let keys = arguments.count >= 5 ? Int(arguments[4]) ?? 1_000 : 1_000
    await benchmarkScaling(count: count, rounds: max(rounds, 1), keyCount: max(keys, 1))
case "resize":
    guard arguments.count == 7, let w = Int(arguments[3]), let h = Int(arguments[4]), let rounds = Int(arguments[5]) else {
        fail("usage: manager-bench resize IN.png W H ROUNDS OUT.png")
    }
    benchmarkResize(input: arguments[2], width: w, height: h, rounds: rounds, output: arguments[6])
case "psnr":
    guard arguments.count == 4 else { fail("usage: manager-bench psnr A.png B.png") }
    psnr(arguments[2], arguments[3])
default:
    fail("usage: manager-bench hits|hits-flow|scaling|resize|psnr ... (see the top of main.swift)")
}
