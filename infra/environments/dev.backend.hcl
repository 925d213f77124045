bucket = "hedera-history-dev-tfstate"
prefix = "hedera-history/dev"
