import CLibFuzzer
import FuzzTargets
import Glibc

@main
enum FuzzTransformSpec {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { FuzzTarget.transformSpec.fuzzOneInput($0, $1) })
    }
}
