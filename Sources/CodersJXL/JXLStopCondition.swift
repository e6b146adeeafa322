import CJXL
import PipelineCore
import Synchronization

/// What libjxl's work polls so that a cancelled or overlong decode stops: libjxl runs
/// every stage of its work (groups of pixels, passes) through the parallel runner it is given, and
/// ours runs those jobs one after another on the calling thread, asking the current checkpoint
/// before each. When it says stop, the runner returns an error and libjxl gives up with
/// `JXL_DEC_ERROR`; the caller then asks the checkpoint for the error to throw. (The encoder runs
/// `ip_jxl_sequential_runner` instead: libjxl 0.7's encoder crashes when a job is refused.)
///
/// One thread: a decode runs on the pipeline's bounded executor like every other coder's, so
/// libjxl's own thread pool would take cores the executor does not know it gave away.
///
/// libjxl keeps the runner's context pointer for the decoder's or encoder's life, while an
/// animation decodes each frame under a checkpoint of its own: the checkpoint is swapped here.
/// Ownership: the decoder handle keeps this object alive as long as libjxl holds it.
final class JXLStopCondition: Sendable {
    private let checkpoint: Mutex<DecodeCheckpoint?>

    init(_ checkpoint: DecodeCheckpoint?) { self.checkpoint = Mutex(checkpoint) }

    /// The checkpoint the work polls from now on.
    func use(_ checkpoint: DecodeCheckpoint) { self.checkpoint.withLock { $0 = checkpoint } }

    /// Throws what made the runner stop (`cancelled`, `limitExceeded(.decodeTime)`), if anything.
    func check() throws {
        try checkpoint.withLock { $0 }?.check()
    }

    var shouldStop: Bool { checkpoint.withLock { $0 }?.shouldStop ?? false }

    /// The context pointer libjxl hands back to `runner`; valid while this object lives.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    /// libjxl's parallel runner, run sequentially: `init` with one thread, then each job in order
    /// unless the stop condition in `runnerOpaque` says stop.
    static let runner: JxlParallelRunner = { runnerOpaque, jxlOpaque, initialise, run, start, end in
        guard let initialise, let run else { return -1 }
        let status = initialise(jxlOpaque, 1)
        guard status == 0 else { return status }
        let stop = runnerOpaque.map { Unmanaged<JXLStopCondition>.fromOpaque($0).takeUnretainedValue() }
        var value = start
        while value < end {
            if let stop, stop.shouldStop { return -1 }
            run(jxlOpaque, value, 0)
            value += 1
        }
        return 0
    }
}
