import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzWebP {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.webp.fuzzOneInput($0, $1) })
    }
}
