/* Refuses to start on a CPU without the instructions the engine was built for (see
 * LOGTIDE_HASWELL in CMakeLists.txt). Built without those instructions itself, and run as an
 * early constructor, before any code that may use them. */
#include <unistd.h>

__attribute__((constructor(101))) static void logtide_check_cpu(void) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi2") || !__builtin_cpu_supports("pclmul")) {
    static const char msg[] =
        "logtide: this build needs an x86-64 CPU with AVX2, BMI2 and PCLMUL (Haswell or later);\n"
        "rebuild with cmake -DLOGTIDE_HASWELL=OFF for a portable, slower binary.\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(1);
  }
}
