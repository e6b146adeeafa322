import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzJPEG {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.jpeg.fuzzOneInput($0, $1) })
    }
}
