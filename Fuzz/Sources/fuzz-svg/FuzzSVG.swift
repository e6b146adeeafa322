import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzSVG {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.svg.fuzzOneInput($0, $1) })
    }
}
