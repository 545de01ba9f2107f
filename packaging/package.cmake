# The Debian package (`cpack -G DEB` in the build folder), included by the top CMakeLists.txt
# after the install rules of the binary, the man page and the completions. It adds what Debian
# policy asks of a package's documentation folder, /usr/share/doc/logtide: `copyright` (the
# machine-readable format, from LICENSE) and `changelog.gz` (from packaging/changelog), and the
# copyright files of the libraries compiled into the binary. The package's binary is stripped;
# its debug symbols go to logtide-dbgsym_VERSION_ARCH.ddeb, found by the binary's build id
# (/usr/lib/debug/.build-id/). tests/package/deb_test.sh checks all of it.

# Who answers for the package: its Maintainer field, the changelog's trailer and the copyright
# file's Upstream-Contact.
set(LOGTIDE_MAINTAINER "logtide developers <logtide-dev@lists.example.org>"
    CACHE STRING "The package's maintainer, as NAME <EMAIL>")

set(logtide_doc_dir ${CMAKE_INSTALL_DATADIR}/doc/logtide)
set(logtide_pkg_out ${CMAKE_CURRENT_BINARY_DIR}/packaging)
file(MAKE_DIRECTORY ${logtide_pkg_out})

# changelog.gz: the top entry names the version being built, or the package would say one
# version in its control file and another in its changelog.
file(STRINGS packaging/changelog logtide_changelog_top LIMIT_COUNT 1)
if(NOT logtide_changelog_top MATCHES "^logtide \\(${PROJECT_VERSION}\\) ")
  message(FATAL_ERROR "packaging/changelog starts with '${logtide_changelog_top}': its first "
                      "entry must be for version ${PROJECT_VERSION} (project() in CMakeLists.txt)")
endif()
configure_file(packaging/changelog ${logtide_pkg_out}/changelog @ONLY)
add_custom_command(OUTPUT ${logtide_pkg_out}/changelog.gz
                   COMMAND gzip -9n -c ${logtide_pkg_out}/changelog > ${logtide_pkg_out}/changelog.gz
                   DEPENDS ${logtide_pkg_out}/changelog)
add_custom_target(changelog ALL DEPENDS ${logtide_pkg_out}/changelog.gz)

# copyright: LICENSE's permission text as the License paragraph (each line indented by one
# space, an empty line written " .").
file(READ LICENSE logtide_license)
string(FIND "${logtide_license}" "Permission is hereby granted" logtide_license_start)
if(logtide_license_start LESS 0)
  message(FATAL_ERROR "LICENSE is not the MIT (Expat) text packaging/copyright.in declares")
endif()
string(SUBSTRING "${logtide_license}" ${logtide_license_start} -1 logtide_license)
string(STRIP "${logtide_license}" logtide_license)
string(REPLACE "\n\n" "\n.\n" logtide_license "${logtide_license}")
string(REPLACE "\n" "\n " logtide_license "${logtide_license}")
set(LOGTIDE_LICENSE_TEXT " ${logtide_license}")

# The libraries whose code is in the binary itself rather than in a shared library the package
# depends on: CLI11 (headers only) always; with LOGTIDE_STATIC_DEPS the static archives and
# toml++'s headers. Their licenses ask that their notices come with the binary: their Debian
# copyright files, one after the other, in copyright.embedded.
set(logtide_embedded "CLI11=libcli11-dev")
if(LOGTIDE_STATIC_DEPS)
  list(APPEND logtide_embedded "Abseil=libabsl-dev" "RE2=libre2-dev" "SQLite=libsqlite3-dev"
       "toml++=libtomlplusplus-dev" "xxHash=libxxhash-dev" "Zstandard=libzstd-dev")
endif()
set(logtide_embedded_text "")
set(logtide_embedded_names "")
foreach(entry IN LISTS logtide_embedded)
  string(REPLACE "=" ";" entry "${entry}")
  list(GET entry 0 name)
  list(GET entry 1 deb)
  list(APPEND logtide_embedded_names "${name} (${deb})")
  string(APPEND logtide_embedded_text "${name}, from the Debian package ${deb}:\n\n")
  if(EXISTS /usr/share/doc/${deb}/copyright)
    file(READ /usr/share/doc/${deb}/copyright text)
    string(APPEND logtide_embedded_text "${text}\n")
  else()
    string(APPEND logtide_embedded_text "(its copyright file was not found on the machine that "
                                        "built this package: see /usr/share/doc/${deb}/copyright "
                                        "on a Debian system)\n\n")
  endif()
endforeach()
list(JOIN logtide_embedded_names ",\n " logtide_embedded_names)
set(LOGTIDE_EMBEDDED_COMMENT
    "The binary also contains code of the libraries below, compiled or linked in\n statically; their copyright and license texts, as their Debian packages give\n them, are in /usr/share/doc/logtide/copyright.embedded:\n ${logtide_embedded_names}.")
configure_file(packaging/copyright.in ${logtide_pkg_out}/copyright @ONLY)
file(WRITE ${logtide_pkg_out}/copyright.embedded "${logtide_embedded_text}")

install(FILES ${logtide_pkg_out}/copyright ${logtide_pkg_out}/copyright.embedded
              ${logtide_pkg_out}/changelog.gz
        DESTINATION ${logtide_doc_dir})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME logtide)
set(CPACK_PACKAGE_VENDOR "the logtide developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "event-time windowed aggregation over newline-delimited JSON logs")
# The summary above is the Description's first line; this is the rest.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "logtide reads newline-delimited JSON logs from files or standard input, puts\n"
    "every event into tumbling, sliding or session windows by the time in the\n"
    "event, and writes one NDJSON or CSV record per window and key, with a\n"
    "watermark deciding when a window is complete. Runs over a growing log keep\n"
    "their state in a SQLite file and resume exactly after a kill.")
string(JOIN "" CPACK_DEBIAN_PACKAGE_DESCRIPTION ${CPACK_DEBIAN_PACKAGE_DESCRIPTION})
set(CPACK_PACKAGE_CONTACT "${LOGTIDE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${LOGTIDE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Library dependencies come from dpkg-shlibdeps. bash loads the completion only through the
# bash-completion package (its /etc/bash.bashrc snippet), which Debian 12 does not install by
# default.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS bash-completion)
# Strips the packaged binary (objcopy --strip-unneeded) and puts its debug information into the
# -dbgsym package.
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)
