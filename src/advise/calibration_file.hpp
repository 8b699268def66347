// A machine's calibration file (calibration.hpp): where it lives and
// reading it on every rank. Apart from calibration.hpp, which runs the
// kernels, so that libgraphcomm-nbr.so can read the file too.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/mpi.hpp"

namespace gc::advise {

inline constexpr int kCalibrationSchema = 1;

// The file used when --calibration is not given: $GRAPHCOMM_CALIBRATION, else
// $XDG_DATA_HOME (or ~/.local/share)/graphcomm/calibration-NAME.json, NAME the
// platform, else this build's MPI flavour and the host's name.
std::string default_calibration_path(const std::string& platform);
std::string default_calibration_name(const std::string& platform);

// Collective: the file's text on every rank, read by rank 0; when it cannot
// be read, `read` says whether the file is missing or unreadable on every
// rank, and the text is the system's reason.
enum class Read { ok, missing, unreadable };
std::string read_on_root(const Comm& comm, const std::string& path, Read& read);

// Collective: the calibration file's JSON on every rank, its schema checked;
// an error on every rank, saying how to make one, when it is missing or bad.
nlohmann::json read_calibration(const Comm& comm, const std::string& path);

// The JSON of a calibration file's text, its schema checked; an error (this
// rank's) naming `path` when it is not one.
nlohmann::json parse_calibration(const std::string& path, const std::string& text);

}  // namespace gc::advise
