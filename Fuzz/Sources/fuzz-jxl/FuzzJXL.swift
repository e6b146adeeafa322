import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzJXL {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.jxl.fuzzOneInput($0, $1) })
    }
}
