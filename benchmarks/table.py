"""What the A/B scripts share: their tables (Markdown, the text columns
then the numbers aligned right, or plain columns) and their command line."""


def print_table(head, lines, markdown, text_columns=3):
    """`head`: the column names; `lines`: rows of cells, as strings."""
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("| " + " | ".join(["---"] * text_columns
                                + ["---:"] * (len(head) - text_columns)) + " |")
        for line in lines:
            print("| " + " | ".join(line) + " |")
    else:
        print("  ".join(head))
        for line in lines:
            print("  ".join(line))


def run_with_rounds(main, doc, rounds):
    """`python script.py [--rounds R] [--markdown]`: main(rounds, markdown)."""
    import argparse
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    main(args.rounds, args.markdown)
