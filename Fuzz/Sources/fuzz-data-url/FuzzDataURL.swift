import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzDataURL {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.dataURL.fuzzOneInput($0, $1) })
    }
}
