"""Command-line pieces shared by the scripts that walk the corpus."""

import argparse
import os


def corpus_parser(doc):
    """An argument parser with --corpus, --build, --models and --jobs."""
    ap = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus",
                    default=os.environ.get("EASYML_CORPUS", "../shared/corpus"),
                    help="the reference corpus (default: $EASYML_CORPUS, "
                    "../shared/corpus)")
    ap.add_argument("--build", default="build",
                    help="build folder with bin/easyml-compile and "
                    "bin/easyml-bench")
    ap.add_argument("--models", nargs="*",
                    help="model folder names (default: all)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="models processed at once")
    return ap


def add_tools(args):
    """Sets args.compiler and args.bench from args.build."""
    args.compiler = os.path.join(args.build, "bin", "easyml-compile")
    args.bench = os.path.join(args.build, "bin", "easyml-bench")
    return args
