import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzAVIF {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.avif.fuzzOneInput($0, $1) })
    }
}
