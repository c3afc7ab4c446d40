// Boost.URL's compiled part, built into torcrun_core: Debian's libboost1.81-all-dev does not
// pull in libboost-url1.81-dev, so the library is compiled from its headers here, once.
// No other translation unit may include <boost/url/src.hpp>.
#include <boost/url/src.hpp>
