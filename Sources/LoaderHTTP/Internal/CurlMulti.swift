import CCurl
import CCurlShim
import Foundation
import PipelineCore
import Synchronization

/// One libcurl multi handle and the one thread that drives it. Every libcurl call for the handle,
/// its easy handles and the cookie share happens on that thread; other threads talk to it only
/// through `commands` and `curl_multi_wakeup`, which libcurl documents as callable from anywhere.
final class CurlMulti: @unchecked Sendable {
    private enum Command {
        case add(CurlTransfer)
        case cancel(CurlTransfer)
    }

    private struct Pending {
        var transfer: CurlTransfer
        var sequence: Int
        var notBefore: ContinuousClock.Instant?
    }

    private let multi: UnsafeMutableRawPointer
    private let share: UnsafeMutableRawPointer?
    /// Commands for the thread, and whether the multi handle is gone: `curl_multi_wakeup` is only
    /// ever called under this lock while it is not, so a late call cannot touch a freed handle.
    private let commands = Mutex<(list: [Command], closed: Bool)>(([], false))
    private let stopping = Atomic<Bool>(false)
    private let stopped = DispatchSemaphore(value: 0)
    private var thread: Thread?
    let maxConcurrent: Atomic<Int>
    /// Easy handles alive (running plus kept idle for reuse); 0 after `stop`.
    let liveEasyHandles = Atomic<Int>(0)
    /// Transfers queued, waiting to retry or running.
    let activeTransfers = Atomic<Int>(0)

    // Loader thread only.
    private var running: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var pending: [Pending] = []
    private var idle: [UnsafeMutableRawPointer] = []
    private var sequence = 0

    /// Call after `ip_curl_open()` returned nil (it opens libcurl and runs its global initialisation).
    init(maxConcurrent: Int) {
        multi = ip_curl_multi_init()
        share = ip_curl_share_init()
        if let share {
            ip_share_setopt_long(share, Int32(CURLSHOPT_SHARE.rawValue), Int(CURL_LOCK_DATA_COOKIE.rawValue))
        }
        self.maxConcurrent = Atomic(max(1, maxConcurrent))
        ip_multi_setopt_long(multi, Int32(CURLMOPT_PIPELINING.rawValue), 2)  // CURLPIPE_MULTIPLEX
        let thread = Thread { [self] in run() }
        thread.name = "ImagePipe.HTTPLoader"
        self.thread = thread
        thread.start()
    }

    func submit(_ transfer: CurlTransfer) {
        activeTransfers.add(1, ordering: .relaxed)
        guard send(.add(transfer)) else {
            activeTransfers.subtract(1, ordering: .relaxed)
            transfer.deliver(.failure(.cancelled))
            return
        }
    }

    func cancel(_ transfer: CurlTransfer) { send(.cancel(transfer)) }

    func setMaxConcurrent(_ count: Int) {
        maxConcurrent.store(max(1, count), ordering: .relaxed)
        wakeUp()
    }

    /// Cancels everything and waits for the thread to release every libcurl handle.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wakeUp()
        // The last reference to a loader can go on its own thread (a progress handler capturing
        // it, released after delivery); waiting there for the thread to finish would never end.
        if Thread.current !== thread { stopped.wait() }
    }

    /// False once the loader has been invalidated.
    @discardableResult
    private func send(_ command: Command) -> Bool {
        commands.withLock { state in
            guard !state.closed else { return false }
            state.list.append(command)
            ip_curl_multi_wakeup(multi)
            return true
        }
    }

    private func wakeUp() {
        commands.withLock { state in
            if !state.closed { ip_curl_multi_wakeup(multi) }
        }
    }

    // MARK: The loader thread

    private func run() {
        while !stopping.load(ordering: .acquiring) {
            handleCommands()
            startPending()
            resumeDrained()
            var stillRunning: Int32 = 0
            ip_curl_multi_perform(multi, &stillRunning)
            let finishedAny = collectFinished()
            let canStartMore = !pending.isEmpty && running.count < maxConcurrent.load(ordering: .relaxed)
            if finishedAny && canStartMore { continue }
            ip_curl_multi_poll(multi, pollTimeout())
        }
        shutDown()
    }

    /// Paused transfers whose body sink has room again go on.
    private func resumeDrained() {
        for (easy, transfer) in running where transfer.isPaused && !(transfer.settings.bodySink?.isFull() ?? false) {
            transfer.isPaused = false
            ip_curl_easy_resume(easy)
        }
    }

    private func pollTimeout() -> Int32 {
        // A paused transfer's sink is asked again soon: it drains without waking this thread.
        var timeout = running.values.contains { $0.isPaused } ? 10 : 1000
        let now = ContinuousClock.now
        if running.count < maxConcurrent.load(ordering: .relaxed) {
            for entry in pending {
                guard let start = entry.notBefore else { return 0 }
                let wait = now.duration(to: start)
                let ms = Int(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
                timeout = min(timeout, max(0, ms + 1))
            }
        }
        return Int32(timeout)
    }

    private func handleCommands() {
        let batch = commands.withLock { state in
            defer { state.list.removeAll() }
            return state.list
        }
        for command in batch {
            switch command {
            case .add(let transfer):
                // Cancelled before the add was seen: its cancel found nothing to stop.
                if transfer.isCancelled {
                    activeTransfers.subtract(1, ordering: .relaxed)
                    transfer.deliver(.failure(.cancelled))
                    continue
                }
                sequence += 1
                pending.append(Pending(transfer: transfer, sequence: sequence, notBefore: nil))
            case .cancel(let transfer):
                if let easy = transfer.easy, running[easy] === transfer {
                    finish(easy: easy, transfer: transfer, outcome: .failure(.cancelled))
                } else if let index = pending.firstIndex(where: { $0.transfer === transfer }) {
                    pending.remove(at: index)
                    activeTransfers.subtract(1, ordering: .relaxed)
                    transfer.deliver(.failure(.cancelled))
                }
            }
        }
    }

    /// Highest priority first; within a priority, oldest (FIFO) or newest (LIFO) first.
    private func startPending() {
        let now = ContinuousClock.now
        while running.count < maxConcurrent.load(ordering: .relaxed) {
            var best: Int?
            for (index, entry) in pending.enumerated() {
                if let start = entry.notBefore, start > now { continue }
                guard let current = best else {
                    best = index
                    continue
                }
                if isBefore(entry, pending[current]) { best = index }
            }
            guard let index = best else { return }
            let entry = pending.remove(at: index)
            start(entry.transfer)
        }
    }

    private func isBefore(_ a: Pending, _ b: Pending) -> Bool {
        if a.transfer.settings.priority != b.transfer.settings.priority {
            return a.transfer.settings.priority > b.transfer.settings.priority
        }
        return a.transfer.settings.order == .lifo ? a.sequence > b.sequence : a.sequence < b.sequence
    }

    private func start(_ transfer: CurlTransfer) {
        let easy: UnsafeMutableRawPointer
        if let reused = idle.popLast() {
            easy = reused
        } else if let created = ip_curl_easy_init() {
            easy = created
            liveEasyHandles.add(1, ordering: .relaxed)
        } else {
            activeTransfers.subtract(1, ordering: .relaxed)
            transfer.deliver(.failure(.invalidDownloadOperation(reason: "libcurl could not create a handle")))
            return
        }
        transfer.resetForAttempt()
        transfer.easy = easy
        transfer.headerList = CurlEasy.configure(easy, for: transfer, share: share)
        running[easy] = transfer
        ip_curl_multi_add_handle(multi, easy)
    }

    private func collectFinished() -> Bool {
        var finishedAny = false
        var queued: Int32 = 0
        while let message = ip_curl_multi_info_read(multi, &queued)?.assumingMemoryBound(to: CURLMsg.self) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let transfer = running[easy]
            else { continue }
            let outcome = transfer.outcome(code: message.pointee.data.result, easy: easy)
            finish(easy: easy, transfer: transfer, outcome: outcome)
            finishedAny = true
        }
        return finishedAny
    }

    /// Takes the handle out of the multi handle, then retries or delivers.
    private func finish(easy: UnsafeMutableRawPointer, transfer: CurlTransfer, outcome: CurlTransfer.Outcome) {
        ip_curl_multi_remove_handle(multi, easy)
        running[easy] = nil
        release(easy: easy, transfer: transfer)
        if case .failure(let error) = outcome, let delay = RetryRule.delay(after: error, transfer: transfer),
            !transfer.isCancelled, !stopping.load(ordering: .relaxed)
        {
            transfer.attempt += 1
            sequence += 1
            pending.append(Pending(transfer: transfer, sequence: sequence, notBefore: .now + .milliseconds(Int(delay * 1000))))
            return
        }
        // Counted down before the callers resume, so they never see their own download as current.
        activeTransfers.subtract(1, ordering: .relaxed)
        transfer.deliver(outcome)
    }

    /// Idle handles keep their connection and DNS caches through `curl_easy_reset`; the pool is
    /// capped at the concurrency so a burst does not leave handles behind.
    private func release(easy: UnsafeMutableRawPointer, transfer: CurlTransfer) {
        if let list = transfer.headerList { ip_curl_slist_free_all(list) }
        transfer.headerList = nil
        transfer.easy = nil
        if idle.count < maxConcurrent.load(ordering: .relaxed) {
            ip_curl_easy_reset(easy)
            idle.append(easy)
        } else {
            ip_curl_easy_cleanup(easy)
            liveEasyHandles.subtract(1, ordering: .relaxed)
        }
    }

    private func shutDown() {
        commands.withLock { $0.closed = true }
        handleCommands()
        for (easy, transfer) in running {
            finish(easy: easy, transfer: transfer, outcome: .failure(.cancelled))
        }
        for entry in pending {
            activeTransfers.subtract(1, ordering: .relaxed)
            entry.transfer.deliver(.failure(.cancelled))
        }
        pending.removeAll()
        for easy in idle {
            ip_curl_easy_cleanup(easy)
            liveEasyHandles.subtract(1, ordering: .relaxed)
        }
        idle.removeAll()
        ip_curl_multi_cleanup(multi)
        if let share { ip_curl_share_cleanup(share) }
        stopped.signal()
    }
}
