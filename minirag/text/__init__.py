"""Text: curate documents and questions, train the BPE tokenizer, chunk, analyze words."""
