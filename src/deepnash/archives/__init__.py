"""Human game records on disk: where commands find them (``locate``) and how to download more (``fetch``)."""

from .fetch import URL_ENV, FetchResult, Month, fetch_month, load_manifest, parse_months, verify_archive
from .locate import ARCHIVE_ENV, ArchiveDir, default_archive_dir, find_archive_dir, packaged_archive_dir, \
    user_archive_dir

__all__ = [
    "ARCHIVE_ENV", "URL_ENV", "ArchiveDir", "FetchResult", "Month", "default_archive_dir", "fetch_month",
    "find_archive_dir", "load_manifest", "packaged_archive_dir", "parse_months", "user_archive_dir",
    "verify_archive",
]
