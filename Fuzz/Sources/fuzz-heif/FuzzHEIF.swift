import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzHEIF {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.heif.fuzzOneInput($0, $1) })
    }
}
